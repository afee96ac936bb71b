import { settleEnvFileEarly } from '../config/index.js';
import { keySourceLabel } from './key-source.js';
import { describeDiagnosticsAnswer, keyFingerprint, secretsToMask } from '../median/index.js';
import { MedianDevError } from '../shared/errors.js';
import type { ControlCommand, DaemonFact } from '../events/index.js';
import type { Recorder } from '../recorder/index.js';
import type { RecordingProxy } from '../proxy/index.js';
import { sendSignedCall } from '../replay/index.js';
import { createRouteRetry } from '../endpoints/index.js';
import type { InspectorServer } from '../inspector-server/index.js';
import { createChildRestartPolicy } from './child-restart-policy.js';
import { createDispatch } from './dispatch.js';
import { createEnvVars } from './env-vars.js';
import { createKeyRotation } from './key-rotation.js';
import { createProjectEndpoint } from './project-endpoint.js';
import { createReplayCommand } from './replay-command.js';
import type { TargetWatch } from './target-watch.js';
import type { DevServerTarget } from './dev-server-target.js';
import type { ControlServer } from '../control/index.js';
import { createToolsUrlWriter } from './tools-url-writer.js';
import type { TunnelKeeper } from './tunnel-keeper.js';
import { inspectorLinkOf } from './daemon-inspector.js';
import type { EmulatorApprovals } from './emulator-approvals.js';
import type { DaemonContext } from './daemon-context.js';

/** What carries calls in: the recorder, the proxy in front of the dev server, and where that is. */
export interface CallPath {
  recorder: Recorder;
  proxy: RecordingProxy;
  /** The dev server's origin: --target, or found from what it announces or the port it opens. */
  target: DevServerTarget;
  /** Says `target_unreachable` in seconds when nothing answers there. */
  targetWatch: TargetWatch;
}

/** Parts that start after the dispatch exists; it asks for them when a command needs them. */
export interface LaterParts {
  tunnel?: TunnelKeeper | undefined;
  inspector?: InspectorServer | undefined;
  approvals?: EmulatorApprovals | undefined;
  control?: ControlServer | undefined;
}

export interface WiredDispatch {
  dispatch: ReturnType<typeof createDispatch>;
  /** How a part reports a fact to the dispatch. */
  report(fact: DaemonFact): void;
  handleCommand(command: ControlCommand): ReturnType<ReturnType<typeof createDispatch>>;
  keys: ReturnType<typeof createKeyRotation>;
  child: ReturnType<typeof createChildRestartPolicy>;
  /** The route as the proxy serves it: replays and diagnostics go through it, so they are recorded. */
  routeThroughProxy: string;
}

/**
 * Builds the parts the dispatch acts on (env vars, key rotation, the tools
 * URL writer, the dev server, Median's endpoint, the route retry) and the
 * dispatch itself; each part reports what happened to it as a fact.
 */
export function wireDispatch(ctx: DaemonContext, { recorder, proxy, target, targetWatch }: CallPath, later: LaterParts): WiredDispatch {
  const { config, options, emit, logger, timing, abort, queue, hub, masker, store, secretFor } = ctx;
  const report = (fact: DaemonFact) => void dispatch(fact);
  const vars = createEnvVars(ctx.fileVars);
  const keys = createKeyRotation({ config, vars, emit, report, logger, clock: options.clock });
  const settled = options.settledEnvFile ?? (config.envFile ? settleEnvFileEarly(config.envFile) : undefined);
  const toolsUrl = createToolsUrlWriter({ envFile: config.envFile, dataDir: config.dataDir, vars, emit, logger, settled });
  ctx.running.toolsUrlNote = () => toolsUrl.noted();
  const child = createChildRestartPolicy({ config, daemonPid: options.pid, maskOutput: (text) => masker.maskText(text), command: options.childCommand, baseEnv: options.baseEnv, vars, key: () => keys.key(), emit, report, logger, signal: abort.signal, timing, targetWatch, target: () => (target.phase() === 'finding' ? undefined : target.current()), clock: options.clock });
  ctx.running.child = () => child.close();
  const endpoint = createProjectEndpoint({ config, proxyUrl: proxy.url, keys, emit, logger, signal: abort.signal, timing, targetWatch, target: () => target.current(), clock: options.clock, devServerStartingSince: () => child.startingSince });
  const routeRetry = createRouteRetry({
    routeUrl: () => `${target.current()}${config.route}`,
    isCurrent: (url) => url === toolsUrl.current(),
    report,
    emit,
    ...(timing.routeRecheckMaxMs ? { maxWaitMs: timing.routeRecheckMaxMs } : {}),
    signal: abort.signal,
    clock: options.clock,
  });
  const routeThroughProxy = `${proxy.url}${config.route}`;
  const dispatch = createDispatch({
    route: config.route,
    envFile: config.envFile,
    queue,
    toolsUrl,
    child,
    keys,
    endpoint,
    routeRetry,
    followKey(key, source) {
      // A new key comes from a file of the env cascade median-dev watches.
      hub.emit({ event: 'key', fingerprint: key ? keyFingerprint(key) : null, source: key ? keySourceLabel(source ?? config.envFile ?? undefined, config.cwd) : null });
      proxy.setSecret(secretFor(key));
      for (const secret of secretsToMask({ medianKey: key })) {
        recorder.addSecret(secret);
        masker.addSecret(secret);
      }
    },
    replay: createReplayCommand({ findCall: (id) => store.findByToolCallId(id), latestManifestRead: () => store.latestManifestRead(), secret: () => secretFor(keys.key()), routeUrl: routeThroughProxy, replayKey: ctx.replayKey }),
    async sendDiagnostics() {
      const secret = secretFor(keys.key());
      if (!secret) throw new MedianDevError('missing_key', 'A diagnostics request has to be signed, and no MEDIAN_KEY is set.');
      const answer = await sendSignedCall({ url: routeThroughProxy, body: '{"op":"diagnostics"}', secret });
      return { status: answer.status, durationMs: answer.durationMs, summary: describeDiagnosticsAnswer(answer) };
    },
    async simulateHostnameChange() {
      if (!later.tunnel) throw new MedianDevError('tunnel_not_started', 'The tunnel has not started yet; try again in a moment.');
      await later.tunnel.simulateHostnameChange();
    },
    decideEmulatorApproval(command) {
      if (!later.approvals) throw new MedianDevError('internal_error', 'The emulator approvals watch starts with the dispatch, and it has not.');
      return later.approvals.decide(command.id, command.decision, command.as);
    },
    clearRecords: () => hub.clearRecords(),
    inspectorLink: () => inspectorLinkOf(later.inspector),
    shutdown: ctx.shutdown,
    emit,
  });
  const handleCommand = (command: ControlCommand) => dispatch({ type: 'command.received', command });
  return { dispatch, report, handleCommand, keys, child, routeThroughProxy };
}
