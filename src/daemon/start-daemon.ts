import { dataDirError, envCascadeFiles, isTargetNamed, updateProjectState, type DaemonSettings } from '../config/index.js';
import { findListeningPorts, realPortLookupSystem } from '../platform/index.js';
import type { RecordingProxy } from '../proxy/index.js';
import { createDevServerTarget, type DevServerTarget } from './dev-server-target.js';
import { createTargetWatch, type TargetWatch } from './target-watch.js';
import { errorEvent } from '../events/index.js';
import { openRecorder, skippedLinesNote } from '../recorder/index.js';
import { startRecordingProxy } from '../proxy/index.js';
import { startControlServer } from '../control/index.js';
import { createRecordSink } from './record-sink.js';
import { devTunnelDomains } from './project-endpoint.js';
import { startTunnelKeeper } from './tunnel-keeper.js';
import type { Daemon, DaemonOptions } from './daemon-options.js';
import { startDaemonInspector } from './daemon-inspector.js';
import type { InspectorServer } from '../inspector-server/index.js';
import { buildDaemonContext, type DaemonContext } from './daemon-context.js';
import { startEmulatorApprovals, type EmulatorApprovals } from './emulator-approvals.js';
import { wireDispatch, type CallPath, type LaterParts, type WiredDispatch } from './wire-dispatch.js';
import { keepStartBacklog, type StartBacklog } from './start-backlog.js';
import { daemonHandle } from './daemon-handle.js';
import { devServerFirst } from './dev-server-first.js';

export type { Daemon, DaemonOptions };

/** How long the start waits for the file watcher's first scan. */
const WATCHER_READY_LIMIT_MS = 5_000;

/**
 * The daemon's parts, in the order they start: the shared context (data dir
 * lock, store, event hub, queue), the call path (recorder, proxy), the
 * dispatch and the parts it acts on (dev server, keys, endpoint), the control
 * channel (before the `proxy` event, so the other commands find the daemon
 * once its first line is out), then the tunnel; the file watcher and the
 * inspector start once the dev server was spawned with the tunnel's URL
 * (dev-server-first.ts). They
 * stop in shutdown.ts's CLOSE_ORDER. What happens between is dispatch.ts: every part reports facts to it; this file only starts and
 * wires the parts. A new part is one more step here and one more entry in
 * RunningParts.
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const ctx = await buildDaemonContext(options);
  const later: LaterParts = {};
  if (options.onEvent) ctx.hub.on(options.onEvent);
  const backlog = keepStartBacklog(ctx.hub);
  const calls = await closingOnError(ctx, () => openCallPath(ctx, later));
  return closingOnError(ctx, async () => {
    await rememberProjectState(ctx, calls.proxy.url);
    const wired = wireDispatch(ctx, calls, later);
    // Before the first line: a script that runs `watch`, `replay` or `calls` once it read where the proxy listens finds this daemon (control.json).
    await startControl(ctx, calls, wired, later);
    ctx.emit({ event: 'proxy', url: calls.proxy.url });
    sayNotes(ctx);
    // The start's critical path is the tunnel's registration, then the dev server's spawn with its URL: the rest starts after.
    const isDevServerSpawned = devServerFirst(ctx.hub, ctx.abort.signal);
    startTunnel(ctx, calls, wired, later);
    await isDevServerSpawned;
    calls.recorder.openAhead(); // the first call's answer (the connect's) would wait for the first segment's creation
    later.approvals = startApprovalsWatch(ctx, wired);
    await startWatcher(ctx, wired);
    later.inspector = await startInspector(ctx, wired, calls);
    sayStarted(ctx, later, backlog);
    return daemonHandle(ctx, calls, wired, backlog);
  });
}

/** Runs a step of the start; if it fails, closes what started and rejects with the data dir's own error when it is one. */
async function closingOnError<T>(ctx: DaemonContext, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await ctx.shutdown();
    throw dataDirError(error, ctx.config.dataDir) ?? error;
  }
}

/** Waits for `promise`, at most `ms`. */
async function atMost(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms).unref()))]);
  } finally {
    clearTimeout(timer);
  }
}

async function openCallPath(ctx: DaemonContext, later: LaterParts): Promise<CallPath> {
  const { config, logger, timing, secrets, masker, emit, secretFor } = ctx;
  let target: DevServerTarget | undefined;
  const recorder = await openRecorder({ dataDir: config.dataDir, secrets, redactVisitor: config.redactVisitor, durability: config.syncRecords ? 'disk' : 'os', logger });
  ctx.running.recorder = () => recorder.close();
  const onRecord = createRecordSink(recorder, emit, (record) => {
    const masked = masker.maskRecord(record);
    // Not in the store: a client that attaches later gets it from the hub.
    ctx.hub.keepUnstored(masked);
    return masked;
  });
  const proxy = await startRecordingProxy({
    target: config.target,
    route: config.route,
    port: config.port,
    ...(secretFor(config.medianKey) ? { secret: secretFor(config.medianKey)! } : {}),
    instanceId: ctx.instanceId,
    replayKey: ctx.replayKey,
    ...(timing.callTimeoutMs ? { limits: { timeoutMs: timing.callTimeoutMs } } : {}),
    logger,
    onRecord,
    // Before the dev server listens, a call gets 503 with Retry-After, not a 502.
    devServerPhase: () => target?.phase() ?? null,
    onTargetAnswered: () => target?.answered(),
  });
  ctx.running.proxy = () => proxy.close();
  const { targetWatch, devServerTarget } = findDevServerTarget(ctx, proxy, later);
  target = devServerTarget;
  return { recorder, proxy, target, targetWatch };
}

/** Where the dev server listens: --target, or what it announces, or the port its process tree opens. */
function findDevServerTarget(ctx: DaemonContext, proxy: RecordingProxy, later: LaterParts): { targetWatch: TargetWatch; devServerTarget: DevServerTarget } {
  const { config, options, emit, logger, abort, hub } = ctx;
  let devServerTarget: DevServerTarget | undefined;
  const current = (): string => devServerTarget?.current() ?? config.target;
  const targetWatch = createTargetWatch({ target: current, route: config.route, isNamed: () => isTargetNamed(config.targetFrom), emit });
  const portSystem = realPortLookupSystem(options.baseEnv);
  devServerTarget = createDevServerTarget({
    config,
    hasCommand: options.childCommand.length > 0,
    proxyPort: proxy.port,
    setProxyTarget: (origin) => proxy.setTarget(origin),
    emit,
    async remember(origin, how) {
      await updateProjectState(config.dataDir, { target: origin, targetFrom: how });
      await later.control?.updateSettings(controlSettings(config, origin));
    },
    lookupPorts: (pid) => findListeningPorts(pid, portSystem),
    targetWatch,
    signal: abort.signal,
    logger,
    ...(ctx.timing.targetFallbackMs ? { timing: { silentFallbackMs: ctx.timing.targetFallbackMs } } : {}),
    clock: options.clock,
  });
  const found = devServerTarget;
  hub.on((event) => found.take(event));
  return { targetWatch, devServerTarget: found };
}

/** What control.json tells the other commands of the data dir. */
function controlSettings(config: DaemonContext['config'], target: string): DaemonSettings {
  return { target, route: config.route, envFile: config.envFile, medianApi: config.medianApi };
}

async function rememberProjectState({ config }: DaemonContext, proxyUrl: string): Promise<void> {
  await updateProjectState(config.dataDir, {
    target: config.target,
    route: config.route,
    proxyUrl,
    medianApi: config.medianApi,
    tunnelDomains: devTunnelDomains(config),
    // A --target is remembered as one: the next start uses it too, and never looks for another.
    ...(config.targetFrom === 'flag' || config.targetFrom === 'remembered-flag' ? { targetFrom: 'flag' as const } : {}),
    // --allow-production-org is remembered for this project; --no-allow-production-org forgets it.
    ...(config.allowProductionOrg === undefined ? {} : { allowProductionOrg: config.allowProductionOrg }),
  });
}

async function startWatcher({ config, timing, logger, running, abort }: DaemonContext, { report }: WiredDispatch): Promise<void> {
  const envFiles = config.envFile ? envCascadeFiles(config.envFile) : [];
  // chokidar loads here, once the tunnel is registering, not with the daemon's modules before it.
  const { startFileWatcher } = await import('../watch/index.js');
  if (abort.signal.aborted) return;
  const fileWatcher = startFileWatcher({
    cwd: config.cwd,
    // Every file of the env cascade: a key edited in `.env` counts as much as one in `.env.local`.
    files: envFiles,
    globs: config.watch,
    debounceMs: timing.watchDebounceMs ?? 300,
    logger,
    onChange: (paths) => {
      if (paths.some((p) => envFiles.includes(p))) report({ type: 'envFile.changed' });
      const watched = paths.filter((p) => !envFiles.includes(p));
      if (watched.length > 0) report({ type: 'files.changed', count: watched.length });
    },
  });
  running.watcher = () => fileWatcher.close();
  // A change made once start resolved is seen (the env file's key, a --watch file);
  // a huge watched tree does not hold the start up for long.
  await atMost(fileWatcher.ready, WATCHER_READY_LIMIT_MS);
}

async function startControl(ctx: DaemonContext, { proxy, target }: CallPath, { handleCommand }: WiredDispatch, later: LaterParts): Promise<void> {
  const { config, hub } = ctx;
  const control = await startControlServer({
    dataDir: config.dataDir,
    pid: ctx.options.pid,
    instanceId: ctx.instanceId,
    proxyUrl: proxy.url,
    replayKey: ctx.replayKey,
    settings: controlSettings(config, target.current()),
    snapshot: () => hub.attachSnapshot(),
    handleCommand,
    logger: ctx.logger,
  });
  ctx.running.control = () => control.close();
  later.control = control;
  hub.on((event) => control.broadcast(event));
}

async function startInspector(ctx: DaemonContext, { handleCommand, keys, routeThroughProxy }: WiredDispatch, { target }: CallPath): Promise<InspectorServer | undefined> {
  const { config, store, hub, masker, logger, secretFor } = ctx;
  const server = await startDaemonInspector({ config, version: ctx.options.version, store, hub, handleCommand, secret: () => secretFor(keys.key()), routeThroughProxy, masker, logger, target: () => target.current() });
  if (server) ctx.running.inspector = () => server.close();
  return server;
}

/** The emulator's held approvals (only when the Median API is median-dev's emulator): the TUI's and the inspector's approve/deny. */
function startApprovalsWatch(ctx: DaemonContext, { keys }: WiredDispatch): EmulatorApprovals {
  const approvals = startEmulatorApprovals({
    apiUrl: ctx.config.medianApi,
    key: () => keys.key(),
    ...(ctx.options.clock ? { clock: ctx.options.clock } : {}),
    ...(ctx.timing.approvalPollMs ? { intervalMs: ctx.timing.approvalPollMs } : {}),
    emit: ctx.emit,
    logger: ctx.logger,
  });
  ctx.running.approvals = () => approvals.close();
  return approvals;
}

/**
 * The tunnel, opened as soon as the proxy listens and the dispatch is wired
 * (`daemon.started` first: a dev server with a remembered URL starts at
 * once). Its events before startDaemon resolved reach the first listeners
 * through the start's backlog.
 */
function startTunnel(ctx: DaemonContext, { proxy }: CallPath, { report }: WiredDispatch, later: LaterParts): void {
  const { config, options, abort, emit } = ctx;
  report({ type: 'daemon.started' });
  const starting = startTunnelKeeper({
    config,
    localPort: proxy.port,
    acceptConnection: (socket) => proxy.acceptConnection(socket),
    instanceId: ctx.instanceId,
    logger: ctx.logger,
    emit,
    report,
    signal: abort.signal,
    remember: (patch) => updateProjectState(config.dataDir, patch).then(() => undefined),
    env: options.baseEnv,
    ...(options.tunnel ? { tuning: options.tunnel } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  }).then(
    (tunnel) => {
      later.tunnel = tunnel;
    },
    (error: unknown) => {
      if (abort.signal.aborted) return;
      emit(errorEvent(error, 'tunnel_start_failed'));
    },
  );
  ctx.running.tunnel = async () => {
    await starting;
    await later.tunnel?.close();
  };
}

/**
 * What the data dir's claim and the store's open found (a killed write's
 * temp file removed, skipped lines): said right after the proxy's event,
 * before the tunnel and the dev server start, so a start killed while they
 * start has said it.
 */
function sayNotes(ctx: DaemonContext): void {
  const { config, emit, store } = ctx;
  for (const note of ctx.startNotes) emit({ event: 'log', ...note });
  const skippedNote = skippedLinesNote(config.dataDir, store.skippedLines());
  if (skippedNote) emit({ event: 'log', level: 'warn', message: skippedNote });
}

/**
 * What the start says once startDaemon has resolved (a macrotask later, so
 * a caller that subscribes right away sees it, after the start's backlog):
 * the inspector's link; then the backlog ends.
 */
function sayStarted(ctx: DaemonContext, later: LaterParts, backlog: StartBacklog): void {
  const { abort, emit } = ctx;
  setImmediate(() => {
    backlog.end();
    if (abort.signal.aborted) return;
    if (later.inspector) emit({ event: 'inspector', url: later.inspector.url, link: later.inspector.newLink() });
  });
}
