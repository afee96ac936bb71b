import { writeFileAtomic } from '../shared/private-files.js';
import { safeJson } from '../shared/output-sanitiser.js';
import { isAbsolute, join, relative } from 'node:path';
import type { Config } from '../config/resolve-config.js';
import type { Daemon } from '../daemon/daemon-options.js';
import type { DaemonEvent, DaemonSnapshot } from '../events/daemon-events.js';
import { resolveToolSecret, secretsToMask } from '../median/key.js';
import type { CallRecord } from '../median/call-record.js';
import { createCallStore } from '../recorder/call-store.js';
import { toCurl } from '../recorder/curl.js';
import { toHar } from '../recorder/har.js';
import { attachTuiToControl, type AttachedTui, type TuiControlClient } from '../tui/attach-to-control.js';
import { restoreTerminal } from '../tui/terminal-restore.js';
import type { CliIo } from './cli-io.js';
import { cliCommandLine, pastableFlags } from './command-line.js';
import { VERSION } from './version.js';
import { createTerminalEditor } from './terminal-editor.js';
import { createOutputMasker } from './output-masker.js';
import { breakInput, breakViewWrites } from './crash-knobs.js';
import { DEFAULT_CALLS_DIR, saveRecordAsTest } from './saved-call-files.js';

export interface TuiWiring {
  config: Pick<Config, 'dataDir' | 'envFile' | 'target' | 'route' | 'medianKey' | 'toolSecret'>;
  isDemo: boolean;
  /** See TuiOptions.helpNote. */
  helpNote?: string;
  onQuit(): void;
  /** The screen could not draw at all: the TUI has stopped and the terminal is handed back (see TuiOptions.onFailed). */
  onFailed?(error: unknown): void;
}

/** Shows the TUI for a control client (the in-process daemon or `watch`'s connection). */
export function attachTui(client: TuiControlClient, io: CliIo, wiring: TuiWiring): AttachedTui {
  const { config } = wiring;
  // Where the dev server listens now (the screen's state has the last `target` event): found from its output (the demo's
  // route, `start` without --target) it is not config.target.
  const targetNow = (): string => attached.tui.state.daemon.target?.url ?? config.target;
  const curlOf = (record: CallRecord): string => {
    try {
      const secret = resolveToolSecret({ medianKey: config.medianKey, toolSecret: config.toolSecret });
      return toCurl(record, { url: `${targetNow()}${config.route}`, secret });
    } catch {
      return '# No MEDIAN_KEY: set it to get a re-signed curl command.';
    }
  };
  const output = io.terminal ?? io.stdout;
  const mendWrites = breakViewWrites(output, io.env);
  const mendInput = breakInput(io.stdin, io.env);
  // Restore the terminal even when the process dies of an unexpected error.
  const onCrash = () => restoreTerminal({ input: io.stdin, output });
  process.once('exit', onCrash);
  const attached = attachTuiToControl(client, {
    input: io.stdin,
    output,
    onFailed(error) {
      process.off('exit', onCrash);
      mendWrites();
      mendInput();
      restoreTerminal({ input: io.stdin, output });
      wiring.onFailed?.(error);
    },
    isDemo: wiring.isDemo,
    ...(wiring.helpNote ? { helpNote: wiring.helpNote } : {}),
    pastable: { command: cliCommandLine(io), flags: pastableFlags(config, io) },
    ...(io.env.TERM ? { terminal: io.env.TERM } : {}),
    editor: createTerminalEditor(io.env),
    curlOf,
    async onEffect(effect) {
      if (effect.type === 'quit') {
        wiring.onQuit();
        return;
      }
      if (effect.type === 'save-call') {
        // The store's record whole (the list holds what the events carried).
        const record = (await createCallStore(config.dataDir).get(effect.record.id)) ?? effect.record;
        const mask = createOutputMasker(secretsToMask({ medianKey: config.medianKey, toolSecret: config.toolSecret }));
        const { file, isNew } = await saveRecordAsTest(record, { callsDir: join(io.cwd, DEFAULT_CALLS_DIR), cwd: io.cwd, mask: mask.text });
        attached.tui.dispatch({ type: 'flash', text: isNew ? `Saved as ${file}: run it with median-dev test` : `Already saved as ${file}` });
        return;
      }
      if (effect.type === 'export-har') {
        const records = await createCallStore(config.dataDir).list({ limit: Number.MAX_SAFE_INTEGER });
        // Into the data dir (0700, ignored by git), never the project folder, and the footer says where.
        const file = join(config.dataDir, `median-dev-${new Date().toISOString().replace(/[:.]/g, '-')}.har`);
        await writeFileAtomic(file, `${safeJson(toHar(records, { creator: { name: 'median-dev', version: VERSION }, baseUrl: targetNow() }), 2)}\n`, { mode: 0o600 });
        const shown = relative(io.cwd, file);
        const where = shown !== '' && !shown.startsWith('..') && !isAbsolute(shown) ? shown : file;
        attached.tui.dispatch({ type: 'flash', text: `Wrote ${records.length} call${records.length === 1 ? '' : 's'} to ${where} (HAR 1.2: open it in your browser devtools' Network tab).` });
      }
    },
  });
  return {
    tui: attached.tui,
    async close() {
      process.off('exit', onCrash);
      await attached.close();
      mendWrites();
      mendInput();
    },
  };
}

/**
 * The in-process daemon as the TUI's client. The newest records are read from
 * the store: the screen starts from the state, then the records as of that same
 * moment come as a second snapshot, then the events held meanwhile, so each call
 * shows once and none is missed.
 */
export function daemonTuiClient(daemon: Daemon): TuiControlClient {
  const reading = daemon.attachSnapshot();
  let held: DaemonEvent[] | undefined = [];
  let onEvent: ((event: DaemonEvent) => void) | undefined;
  let onSnapshot: ((snapshot: DaemonSnapshot) => void) | undefined;
  const release = (snapshot: DaemonSnapshot | undefined): void => {
    const events = held ?? [];
    held = undefined;
    if (snapshot) onSnapshot?.(snapshot);
    for (const event of events) onEvent?.(event);
  };
  // The store unreadable: the screen keeps the state it has and goes on with the events.
  reading.then(release, () => release(undefined));
  return {
    snapshot: daemon.snapshot(),
    onEvent(listener) {
      onEvent = listener;
      const unsubscribe = daemon.events.on((event) => (held ? held.push(event) : listener(event)));
      return () => {
        onEvent = undefined;
        unsubscribe();
      };
    },
    onSnapshot(listener) {
      onSnapshot = listener;
      return () => (onSnapshot = undefined);
    },
    send: (command) => daemon.handleCommand(command),
    close: () => undefined,
  };
}

/** The TUI for the daemon in this process. */
export function attachDaemonTui(daemon: Daemon, io: CliIo, wiring: TuiWiring): () => void {
  const attached = attachTui(daemonTuiClient(daemon), io, wiring);
  return () => void attached.close();
}
