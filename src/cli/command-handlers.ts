import type { CliIo } from './cli-io.js';

/* Options objects come from commander; each command validates its own. */
type Options = Record<string, unknown>;

export interface CommandHandlers {
  start(command: string[], options: Options, io: CliIo): Promise<void>;
  calls(query: string[], options: Options, io: CliIo): Promise<void>;
  callsSave(ids: string[], options: Options, io: CliIo): Promise<void>;
  test(files: string[], devCommand: string[], options: Options, io: CliIo): Promise<void>;
  show(id: string, options: Options, io: CliIo): Promise<void>;
  replay(id: string, options: Options, io: CliIo): Promise<void>;
  call(tool: string, options: Options, io: CliIo): Promise<void>;
  manifest(options: Options, io: CliIo): Promise<void>;
  endpoints(options: Options, io: CliIo): Promise<void>;
  prune(options: Options, io: CliIo): Promise<void>;
  sync(options: Options, io: CliIo): Promise<void>;
  restart(options: Options, io: CliIo): Promise<void>;
  watch(options: Options, io: CliIo): Promise<void>;
  inspect(options: Options, io: CliIo): Promise<void>;
  doctor(options: Options, io: CliIo): Promise<void>;
  export(options: Options, io: CliIo): Promise<void>;
  emulate(options: Options, io: CliIo): Promise<void>;
  emulateCall(tool: string, options: Options, io: CliIo): Promise<void>;
  emulateDecision(decision: 'approve' | 'deny', id: string, options: Options, io: CliIo): Promise<void>;
  emulateApprovals(options: Options, io: CliIo): Promise<void>;
  diagnostics(options: Options, io: CliIo): Promise<void>;
  why(tool: string, options: Options, io: CliIo): Promise<void>;
  demo(options: Options, io: CliIo): Promise<void>;
}

// Commands load lazily: `median-dev calls` should not pay for blessed or the tunnel.
export const commandHandlers: CommandHandlers = {
  start: async (command, options, io) => (await import('./commands/start-command.js')).runStart(command, options, io),
  calls: async (query, options, io) => (await import('./commands/calls-command.js')).runCalls(query, options, io),
  callsSave: async (ids, options, io) => (await import('./commands/calls-save-command.js')).runCallsSave(ids, options, io),
  test: async (files, devCommand, options, io) => (await import('./commands/test-command.js')).runTest(files, devCommand, options, io),
  show: async (id, options, io) => (await import('./commands/show-command.js')).runShow(id, options, io),
  replay: async (id, options, io) => (await import('./commands/replay-command.js')).runReplay(id, options, io),
  call: async (tool, options, io) => (await import('./commands/call-command.js')).runCall(tool, options, io),
  manifest: async (options, io) => (await import('./commands/manifest-command.js')).runManifest(options, io),
  endpoints: async (options, io) => (await import('./commands/endpoints-command.js')).runEndpoints(options, io),
  prune: async (options, io) => (await import('./commands/endpoints-command.js')).runPrune(options, io),
  sync: async (options, io) => (await import('./commands/sync-command.js')).runSync(options, io),
  restart: async (options, io) => (await import('./commands/restart-command.js')).runRestart(options, io),
  watch: async (options, io) => (await import('./commands/watch-command.js')).runWatch(options, io),
  inspect: async (options, io) => (await import('./commands/inspect-command.js')).runInspect(options, io),
  doctor: async (options, io) => (await import('./commands/doctor-command.js')).runDoctor(options, io),
  export: async (options, io) => (await import('./commands/export-command.js')).runExport(options, io),
  emulate: async (options, io) => (await import('./commands/emulate-command.js')).runEmulate(options, io),
  emulateCall: async (tool, options, io) => (await import('./commands/emulate-call-command.js')).runEmulateCall(tool, options, io),
  emulateDecision: async (decision, id, options, io) => (await import('./commands/emulate-approve-command.js')).runEmulateDecision(decision, id, options, io),
  emulateApprovals: async (options, io) => (await import('./commands/emulate-approve-command.js')).runEmulateApprovals(options, io),
  diagnostics: async (options, io) => (await import('./commands/diagnostics-command.js')).runDiagnostics(options, io),
  why: async (tool, options, io) => (await import('./commands/why-command.js')).runWhy(tool, options, io),
  demo: async (options, io) => (await import('./commands/demo-command.js')).runDemo(options, io),
};
