import { Command, Option } from 'commander';
import type { CliIo } from './cli-io.js';
import { VERDICT_KINDS } from '../median/verdict-types.js';
import { RISKS } from '../median/protocol.js';
import { DEFAULTS } from '../config/defaults.js';
import { withStartOptions } from './start-options.js';
import { commandHandlers, type CommandHandlers } from './command-handlers.js';

import { EMULATE_TUNNEL_DOMAIN, EMULATE_TUNNEL_SERVER_PORT } from './emulate-tunnel-defaults.js';
import { VERSION } from './version.js';
import { buildingOnly } from './building-only.js';
import { DEFAULT_TEAMMATE } from './teammate-name.js';

export { VERSION };

/** Options every command takes (SPEC §2.2). */
function withCommonOptions(command: Command): Command {
  return command
    .option('--target <url>', 'the dev server origin (default for start -- <command>: the URL the dev server announces, else the port it opens; else what the last start used, else http://localhost:3000)')
    .option('--route <path>', 'the route path (default: last start, else /api/median)')
    .option('--data-dir <dir>', 'recordings and state (env MEDIAN_DEV_DIR, default ./.median-dev)')
    .option(
      '--env <path>',
      'the env file: MEDIAN_TOOLS_URL is written there, MEDIAN_KEY read from it, then from .env.development.local, .env.local, .env.development, .env beside it (default .env.local)',
    )
    .option('--env-file <path>', 'the same as --env (Node 20 itself stops when a --env-file <path> is missing: prefer --env)')
    .option('--no-env-file', 'do not read or write an env file')
    .option('--median-api <url>', 'Median API base (env MEDIAN_API_URL, default https://api.median.sh); start passes it to the dev server as MEDIAN_API_URL')
    .option('--debug', 'show stack traces for unexpected errors');
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * Builds the command tree (with `only`, that command alone). Handlers are
 * injected so tests can drive parsing alone; main.ts passes the real ones.
 */
export function createProgram(io: CliIo, handlers: CommandHandlers = commandHandlers, only?: string): Command {
  const root = new Command('median-dev');
  // With `only` (the command argv names), the other commands are not built (building-only.ts).
  const program = only === undefined ? root : buildingOnly(root, only);
  program
    .description(
      'The local development companion for Median tool endpoints: a stable tunnel, an endpoint that heals itself when the hostname changes, and every signed call recorded and replayable.',
    )
    .version(VERSION, '-v, --version')
    .exitOverride()
    // Options after a subcommand belong to it (`endpoints prune --yes`).
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    .showHelpAfterError('(run median-dev --help for every command, or median-dev <command> --help)')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .addHelpText(
      'after',
      `
Examples:
  median-dev start -- npm run dev        tunnel + proxy + endpoint + TUI, with your dev server as the child
  median-dev calls --tool orderStatus    the recorded calls to one tool
  median-dev replay call_3f2a --yes      re-send a recorded call, re-signed
  median-dev demo                        everything against the built-in emulator, offline

Exit codes: 0 success, 1 failure, 2 usage error.`,
    );

  withCommonOptions(
    withStartOptions(program.command('start'))
      .description('start the daemon: recording proxy, tunnel, MEDIAN_TOOLS_URL, endpoint healing, terminal UI')
      .argument('[command...]', 'the dev server command to run as a child (after --)'),
  ).action((command: string[], options) => handlers.start(command, options, io));

  const calls = withCommonOptions(
    program
      .command('calls')
      .description('recorded calls, newest first; filter words as in the TUI’s / (tool:x verdict:refused status:5xx sig:invalid risk:high is:replay, text)')
      .argument('[filter...]', 'filter words, all must match (a -word that negates goes after --, or in --filter)')
      .option('--filter <words>', 'the same filter words as one argument, e.g. --filter "tool:refund -verdict:answered"')
      .option('--since <when>', 'only calls since a time (2026-01-05T14:00Z) or a duration ago (30s, 10m, 2h, 1d)')
      .option('--until <when>', 'only calls until a time or a duration ago')
      .option('-f, --follow', 'print new calls as they are recorded, like tail -f (Ctrl-C stops; --json: one record a line)')
      .option('--json', 'an array of records')
      .option('--tool <name>', 'only calls to this tool')
      .addOption(new Option('--verdict <kind>', 'only calls with this verdict').choices([...VERDICT_KINDS]))
      .option('--limit <n>', 'at most this many', '50'),
  )
    .enablePositionalOptions()
    .action((filter: string[], options) => handlers.calls(filter, options, io));
  withCommonOptions(
    calls
      .command('save')
      .description('save recorded calls as files under median-calls/ (to commit), run by `median-dev test`')
      .argument('[ids...]', 'toolCallIds, record ids (rec_…) or unique prefixes')
      .option('--as <name>', 'the file name (without .json) for one call; default <tool>-<end of its toolCallId>')
      .option('--dir <dir>', 'the saved calls folder', 'median-calls')
      .option('--keep-visitor', 'keep the visitor’s id, email and name (default: stable placeholders)')
      .option('--from-har <file>', 'save the tool calls of a HAR file (from `export --har`, a browser, Polly.js)')
      .option('--force', 'replace a saved call of the same name')
      .option('--json', 'what was saved, as JSON'),
  ).action((ids: string[], options) => handlers.callsSave(ids, options, io));

  withCommonOptions(
    program
      .command('test')
      .description('send every saved call (median-calls/) to the local route again and check what the agent would be told')
      .argument('[files...]', 'saved call files, folders or globs (default: every .json under --dir); then -- <dev server command>')
      .option('--dir <dir>', 'the saved calls folder', 'median-calls')
      .option('--filter <words>', 'only saved calls matching these filter words (tool:x verdict:refused …)')
      .option('--update', 'rewrite the expectations of failing calls from the answers they get now')
      .option('--same-id', 'send each call with its saved toolCallId (default: a fresh call_… per run)')
      .option('--bail', 'stop at the first failing call')
      .option('--concurrency <n>', 'calls in flight at once (default 1: in file order, as calls of one conversation may depend on each other)')
      .option('--junit <file>', 'also write a JUnit XML report')
      .option('--allow-production', 'send even to a target that looks like production')
      .option('--json', 'the results as JSON'),
  ).action((files: string[], options, command: Command) => {
    // Operands after `--` are the dev server command; commander hands them over with the files.
    const raw = (command.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs ?? [];
    const dash = raw.indexOf('--');
    const devCommand = dash === -1 ? [] : raw.slice(dash + 1);
    return handlers.test(files.slice(0, files.length - devCommand.length), devCommand, options, io);
  });

  withCommonOptions(
    program
      .command('show')
      .description('one recorded call, whole')
      .argument('<id>', 'a toolCallId (the original call, with a list of its replays), a record id (rec_…), or a unique prefix')
      .option('--json', 'the record as JSON (with `replays` when it was replayed)')
      .option('--curl', 'a curl command that re-sends it, re-signed (valid five minutes)')
      .option('--allow-unsigned-original', 'with --curl: re-sign a call whose original was not validly signed (anyone could have sent it)')
      .option('--diff', 'a replay’s response against its original’s (for a toolCallId: its newest replay)'),
  ).action((id: string, options) => handlers.show(id, options, io));

  withCommonOptions(
    program
      .command('replay')
      .description('re-send a recorded call to the route, re-signed with a fresh timestamp')
      .argument('<id>', 'a toolCallId (the call the agent made, never one of its replays), a record id (rec_…, a replay too), or a unique prefix')
      .option('--new-id', 'send with a new toolCallId (call_ + 32 hex) instead of the same one')
      .option('--input <json|@file>', 'replace the input; sent with a new toolCallId, since a route that keys on toolCallId would answer the first result')
      .option('--same-id', 'with --input: keep the original toolCallId anyway')
      .option('--at-offset <ms>', 'sign at now + offset ms (e.g. -299000 to test the five-minute window)')
      .option('--yes', 'confirm re-running a reviewed or high-risk call (the stricter of the recorded risk and the manifest’s) without being asked; in a terminal replay asks, a script needs --yes')
      .option('--allow-unsigned-original', 're-sign a call whose original was not validly signed (anyone who reaches the tunnel could have sent it, claiming any visitor)')
      .option('--json', 'the replay record as JSON'),
  ).action((id: string, options) => handlers.replay(id, options, io));

  withCommonOptions(
    program
      .command('call')
      .description('a signed test call, like `median tools test` (toolCallId test_<uuid>)')
      .argument('<tool>', 'the tool name')
      .option('--input <json|@file>', 'the input object', '{}')
      .addOption(new Option('--risk <risk>', 'the risk sent in the context (default: the manifest’s)').choices([...RISKS]))
      .option('--conversation <id>', 'the conversationId (default: the toolCallId)')
      .option('--json', 'the answer and verdict as JSON'),
  ).action((tool: string, options) => handlers.call(tool, options, io));

  withCommonOptions(
    program
      .command('why')
      .description('why the agent may not use a tool: the five checks of Median’s “The agent does not use a tool”')
      .argument('<tool>', 'the tool name')
      .option('--json', 'the checks as JSON'),
  ).action((tool: string, options) => handlers.why(tool, options, io));

  withCommonOptions(
    program
      .command('diagnostics')
      .description('the signed {"op":"diagnostics"} Median sends when a report is filed: waits 8 s, keeps the first 2,000 characters')
      .option('--json', 'the answer, what Median keeps and the verdict as JSON'),
  ).action((options) => handlers.diagnostics(options, io));

  withCommonOptions(
    program
      .command('manifest')
      .description('fetch the manifest signed and check it against every sync rule')
      .option('--json', 'the manifest and the problems as JSON'),
  ).action((options) => handlers.manifest(options, io));

  const endpoints = withCommonOptions(
    program
      .command('endpoints')
      .description('list Median endpoints, marking this project’s and stale ones')
      .option('--json', 'as JSON'),
  )
    .enablePositionalOptions()
    .action((options) => handlers.endpoints(options, io));
  withCommonOptions(
    endpoints
      .command('prune')
      .description('remove stale tunnel endpoints of this project')
      .option('--yes', 'do not ask per endpoint')
      .option('--json', 'as JSON'),
  ).action((_options, command: Command) => handlers.prune(command.optsWithGlobals(), io));

  withCommonOptions(
    program.command('sync').description('ask Median to sync the current endpoint').option('--json', 'as JSON'),
  ).action((options) => handlers.sync(options, io));

  withCommonOptions(program.command('restart').description('restart the child command of a running daemon')).action(
    (options) => handlers.restart(options, io),
  );

  withCommonOptions(program.command('watch').description('the terminal UI attached to a running daemon')).action(
    (options) => handlers.watch(options, io),
  );

  withCommonOptions(
    program
      .command('inspect')
      .description('open the browser inspector of a running daemon (a fresh one-time link)')
      .option('--no-open', 'print the link instead of opening a browser')
      .option('--json', 'the URL and the link as JSON'),
  ).action((options) => handlers.inspect(options, io));

  withCommonOptions(
    program
      .command('doctor')
      .description('check key, env file, route, tunnel and endpoints; say what to fix')
      .option('--json', 'the checks as JSON'),
  ).action((options) => handlers.doctor(options, io));

  withCommonOptions(
    program
      .command('export')
      .description('export recorded calls')
      .requiredOption('--har <file>', 'write a HAR 1.2 file (opens in browser devtools), 0600; - for standard output')
      .option('--tool <name>', 'only calls to this tool')
      .option('--limit <n>', 'at most this many, newest first')
      .option('--saved', 'the saved calls (median-calls/, with their saved answers) instead of the recordings')
      .option('--dir <dir>', 'with --saved: the saved calls folder', 'median-calls'),
  ).action((options) => handlers.export(options, io));

  const emulate = program
    .command('emulate')
    .description('run the local Median emulator (the Median API and the cloud side of calls)')
    .enablePositionalOptions()
    .option('--port <n>', 'port on 127.0.0.1 (0: any free port)', '4100')
    .option('--data-dir <dir>', 'where it keeps emulator.env: its URL and the key it made, reused next run (env MEDIAN_DEV_DIR, default ./.median-dev)')
    .option('--tunnel-domain <domain=host:port>', 'send public hostnames under <domain> to a self-hosted localtunnel server, e.g. lt.example.test=127.0.0.1:8080 (repeatable)', collect)
    .option('--with-tunnel-server [port]', `also run a localtunnel server on 127.0.0.1 (default port ${EMULATE_TUNNEL_SERVER_PORT}; 0: any), its tunnels under ${EMULATE_TUNNEL_DOMAIN}: your own app end to end offline`)
    .option('--json', 'print the URL and key as JSON')
    .option('--production <url>', 'hold a production endpoint at this URL, answered by the emulator (e.g. https://acme.example/api/median)')
    .option('--production-tools <names>', 'the production endpoint’s tools, comma-separated', 'shipParcel,trackParcel')
    .option('--teammate <url>', 'hold a teammate’s dev tunnel endpoint at this URL (e.g. https://dana-7f3a.loca.lt/api/median)')
    .option('--teammate-tools <names>', 'the teammate endpoint’s tools, comma-separated', 'orderStatus')
    .action((options) => handlers.emulate(options, io));
  emulate
    .command('call')
    .description('have the running emulator call a tool as the cloud does: signed, through the endpoint’s public URL; prints what the agent sees')
    .argument('<tool>', 'the tool name')
    .option('--input <json|@file>', 'the input object (default: a plausible one made from the tool’s input schema)')
    .option('--endpoint <id|url>', 'call the tool on this endpoint (default: the one that has it switched on)')
    .option('--conversation <id>', 'the conversationId (default: a new conv_…)')
    .option('--data-dir <dir>', 'the data dir the emulator runs with (env MEDIAN_DEV_DIR, default ./.median-dev)')
    .option('--env <file>', 'find the emulator through this env file instead (the demo’s demo.env)')
    .option('--json', 'the call and verdict as JSON')
    .action((tool: string, _options, command: Command) => handlers.emulateCall(tool, command.optsWithGlobals(), io));
  for (const decision of ['approve', 'deny'] as const) {
    emulate
      .command(decision)
      .description(decision === 'approve' ? 'approve a call the emulator holds for a teammate (it runs, with the id as toolCallId and --as as approvedBy)' : 'decline a call the emulator holds (nothing is sent)')
      .argument('<id>', 'the approval request id (apr_…)')
      .option('--as <name>', 'the teammate deciding (approvedBy)', DEFAULT_TEAMMATE)
      .option('--data-dir <dir>', 'the data dir the emulator runs with (env MEDIAN_DEV_DIR, default ./.median-dev)')
      .option('--env <file>', 'find the emulator through this env file instead (the demo’s demo.env)')
      .option('--json', 'the run (approve) or the request (deny) as JSON')
      .action((id: string, _options, command: Command) => handlers.emulateDecision(decision, id, command.optsWithGlobals(), io));
  }
  emulate
    .command('approvals')
    .description('the calls the emulator holds for a decision (reviewed and high risk)')
    .option('--all', 'also the decided and expired ones')
    .option('--data-dir <dir>', 'the data dir the emulator runs with (env MEDIAN_DEV_DIR, default ./.median-dev)')
    .option('--env <file>', 'find the emulator through this env file instead (the demo’s demo.env)')
    .option('--json', 'as JSON')
    .action((_options, command: Command) => handlers.emulateApprovals(command.optsWithGlobals(), io));

  program
    .command('demo')
    .description('the whole product offline: emulator, loopback tunnel, example route, daemon and live agent traffic')
    .option('--no-tui', 'plain log lines instead of the terminal UI')
    .option('--json', 'one JSON event a line on stdout')
    .option('--port <n>', 'the proxy port (0: any free port)', '0')
    .option('--data-dir <dir>', 'recordings and state (default: a fresh temporary folder)')
    .option('--with-production', 'the organisation also serves production (https://acme.example/api/median): start stops before connecting')
    .option('--with-teammate', 'a teammate’s tunnel (https://dana-7f3a.loca.lt/api/median) already serves orderStatus: a clash median-dev does not heal')
    .option('--allow-production-org', 'connect even beside production (with --with-production)')
    .option('--inspector-port <n>', 'the browser inspector on 127.0.0.1 (taken: any free port; 0: any)', String(DEFAULTS.inspectorPort))
    .option('--no-inspector', 'do not serve the browser inspector')
    .option('--debug', 'show stack traces for unexpected errors')
    .action((options) => handlers.demo(options, io));

  return root;
}
