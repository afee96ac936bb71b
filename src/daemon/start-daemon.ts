import { randomBytes } from 'node:crypto';
import { configKeySource, keySourceLabel } from './key-source.js';
import { dataDirError, envCascadeFiles, readEnvFile, updateProjectState } from '../config/index.js';
import { describeDiagnosticsAnswer, keyFingerprint, newReplayKey, resolveToolSecret, secretsToMask, type CallRecord } from '../median/index.js';
import { MedianDevError } from '../shared/errors.js';
import { silentLogger } from '../shared/logger.js';
import { errorEvent, type ControlCommand, type DaemonFact, type NewDaemonEvent } from '../events/index.js';
import { createCallStore, openRecorder, skippedLinesNote, type Recorder } from '../recorder/index.js';
import { startRecordingProxy, type RecordingProxy } from '../proxy/index.js';
import { startControlServer } from '../control/index.js';
import { startFileWatcher } from '../watch/index.js';
import { sendSignedCall } from '../replay/index.js';
import { createRouteRetry } from '../endpoints/index.js';
import { createChildRestartPolicy } from './child-restart-policy.js';
import { createDispatch } from './dispatch.js';
import { createEnvVars } from './env-vars.js';
import { createEventHub } from './event-hub.js';
import { createEventMasker } from './event-masker.js';
import { createKeyRotation } from './key-rotation.js';
import { createProjectEndpoint, devTunnelDomains } from './project-endpoint.js';
import { createRecordSink } from './record-sink.js';
import { createReplayCommand } from './replay-command.js';
import { createTargetWatch } from './target-watch.js';
import { createDevServerLog, devServerLogPath } from './dev-server-log.js';
import { createSerialQueue } from './serial-queue.js';
import { claimDataDir } from './claim-data-dir.js';
import { createShutdown, type RunningParts } from './shutdown.js';
import { createToolsUrlWriter } from './tools-url-writer.js';
import { startTunnelKeeper, type TunnelKeeper } from './tunnel-keeper.js';
import type { Daemon, DaemonOptions } from './daemon-options.js';
import { inspectorLinkOf, startDaemonInspector } from './daemon-inspector.js';
import type { InspectorServer } from '../inspector-server/index.js';

export type { Daemon, DaemonOptions };

/** How long the start waits for the file watcher's first scan. */
const WATCHER_READY_LIMIT_MS = 5_000;

/** Waits for `promise`, at most `ms`. */
async function atMost(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms).unref()))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts the recorder, the proxy, the control channel and the file watcher,
 * resolves, then opens the tunnel. What happens after is dispatch.ts: every
 * part reports facts to it; this file only builds and wires the parts.
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { config } = options;
  const logger = options.logger ?? silentLogger;
  const timing = options.timing ?? {};
  const instanceId = randomBytes(8).toString('hex');
  // Only this daemon and local clients reading control.json (0600) can mark a request as a replay.
  const replayKey = newReplayKey();
  const abort = new AbortController();

  // Nobody else's daemon here, the data dir made and locked, what a crashed one left cleared.
  const { lock, notes: startNotes } = await claimDataDir(config, options.pid);

  const medianKey = config.medianKey;
  const fileVars = config.envFile
    ? await readEnvFile(config.envFile).catch(async (error: unknown) => {
        await lock.release();
        throw error;
      })
    : {};
  const secretFor = (key: string | undefined): Uint8Array | undefined => {
    if (!key && !config.toolSecret) return undefined;
    try {
      return resolveToolSecret({ medianKey: key, toolSecret: config.toolSecret });
    } catch {
      return undefined; // a malformed key: calls are recorded as unchecked, and doctor says why
    }
  };

  const store = createCallStore(config.dataDir);
  const recent = await store.list({ limit: 500 }).catch(() => [] as CallRecord[]);
  const hub = createEventHub({
    version: options.version,
    isDemo: options.isDemo === true,
    keyFingerprint: medianKey ? keyFingerprint(medianKey) : null,
    keySource: medianKey ? configKeySource(config) : null,
    tunnelHost: config.tunnel === 'localtunnel' ? config.tunnelHost : null,
    callCount: await store.count().catch(() => recent.length),
    records: recent.slice().reverse(),
    devServerLog: devServerLogPath(config.dataDir),
  });
  // Dev server output, log and error messages reach the screen and the control channel: masked first.
  // Every secret median-dev knows: the key, MEDIAN_TOOL_SECRET, the secret derived from the key.
  const secrets = secretsToMask({ medianKey, toolSecret: config.toolSecret });
  const masker = createEventMasker(secrets, { redactVisitor: config.redactVisitor });
  const emit = (event: NewDaemonEvent) => hub.emit(masker.mask(event));

  // Each running part's close(), in the order shutdown.ts closes them.
  const running: RunningParts = {};
  running.lock = () => lock.release();
  // The dev server's output goes to a file in the data dir too (masked: events pass the masker first).
  const devServerLog = createDevServerLog({ dataDir: config.dataDir, logger });
  hub.on((event) => devServerLog.take(event));
  running.devServerLog = () => devServerLog.close();
  const shutdown = createShutdown(running, { abort: () => abort.abort(new MedianDevError('daemon_closed', 'The daemon is closing.')), logger });
  const queue = createSerialQueue((error) => {
    if (abort.signal.aborted) return;
    emit(errorEvent(error));
  });
  running.queue = () => queue.close();

  let recorder: Recorder;
  let proxy: RecordingProxy;
  try {
    recorder = await openRecorder({ dataDir: config.dataDir, secrets, redactVisitor: config.redactVisitor, logger });
    running.recorder = () => recorder.close();
    const onRecord = createRecordSink(recorder, emit, (record) => masker.maskRecord(record));
    proxy = await startRecordingProxy({
      target: config.target,
      route: config.route,
      port: config.port,
      ...(secretFor(medianKey) ? { secret: secretFor(medianKey)! } : {}),
      instanceId,
      replayKey,
      ...(timing.callTimeoutMs ? { limits: { timeoutMs: timing.callTimeoutMs } } : {}),
      logger,
      onRecord,
    });
    running.proxy = () => proxy.close();
  } catch (error) {
    await shutdown();
    throw dataDirError(error, config.dataDir) ?? error;
  }
  emit({ event: 'proxy', url: proxy.url });

  try {
    await updateProjectState(config.dataDir, {
      target: config.target,
      route: config.route,
      proxyUrl: proxy.url,
      medianApi: config.medianApi,
      tunnelDomains: devTunnelDomains(config),
      // --allow-production-org is remembered for this project; --no-allow-production-org forgets it.
      ...(config.allowProductionOrg === undefined ? {} : { allowProductionOrg: config.allowProductionOrg }),
    });

    // The parts the dispatch acts on; each reports what happened to it as a fact.
    const report = (fact: DaemonFact) => void dispatch(fact);
    const vars = createEnvVars(fileVars);
    const keys = createKeyRotation({ config, vars, emit, report, logger });
    const toolsUrl = createToolsUrlWriter({ envFile: config.envFile, dataDir: config.dataDir, vars, emit, logger });
    const targetWatch = createTargetWatch({ target: config.target, route: config.route, emit });
    const child = createChildRestartPolicy({ config, daemonPid: options.pid, maskOutput: (text) => masker.maskText(text), command: options.childCommand, baseEnv: options.baseEnv, vars, key: () => keys.key(), emit, report, logger, signal: abort.signal, timing, targetWatch });
    running.child = () => child.close();
    const endpoint = createProjectEndpoint({ config, proxyUrl: proxy.url, keys, emit, logger, signal: abort.signal, timing, targetWatch });
    const routeRetry = createRouteRetry({
      routeUrl: `${config.target}${config.route}`,
      isCurrent: (url) => url === toolsUrl.current(),
      report,
      emit,
      ...(timing.routeRecheckMaxMs ? { maxWaitMs: timing.routeRecheckMaxMs } : {}),
      signal: abort.signal,
    });
    const routeThroughProxy = `${proxy.url}${config.route}`;
    let tunnel: TunnelKeeper | undefined;
    let inspector: InspectorServer | undefined;
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
      replay: createReplayCommand({ findCall: (id) => store.findByToolCallId(id), latestManifestRead: () => store.latestManifestRead(), secret: () => secretFor(keys.key()), routeUrl: routeThroughProxy, replayKey }),
      async sendDiagnostics() {
        const secret = secretFor(keys.key());
        if (!secret) throw new MedianDevError('missing_key', 'A diagnostics request has to be signed, and no MEDIAN_KEY is set.');
        const answer = await sendSignedCall({ url: routeThroughProxy, body: '{"op":"diagnostics"}', secret });
        return { status: answer.status, durationMs: answer.durationMs, summary: describeDiagnosticsAnswer(answer) };
      },
      async simulateHostnameChange() {
        if (!tunnel) throw new MedianDevError('tunnel_not_started', 'The tunnel has not started yet; try again in a moment.');
        await tunnel.simulateHostnameChange();
      },
      clearRecords: () => hub.clearRecords(),
      inspectorLink: () => inspectorLinkOf(inspector),
      shutdown,
      emit,
    });
    const handleCommand = (command: ControlCommand) => dispatch({ type: 'command.received', command });

    const envFiles = config.envFile ? envCascadeFiles(config.envFile) : [];
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

    const control = await startControlServer({
      dataDir: config.dataDir,
      pid: options.pid,
      instanceId,
      proxyUrl: proxy.url,
      replayKey,
      settings: { target: config.target, route: config.route, envFile: config.envFile, medianApi: config.medianApi },
      snapshot: () => hub.snapshot(),
      handleCommand,
      logger,
    });
    running.control = () => control.close();
    hub.on((event) => control.broadcast(event));

    const server = await startDaemonInspector({ config, version: options.version, store, hub, handleCommand, secret: () => secretFor(keys.key()), routeThroughProxy, masker, logger });
    if (server) running.inspector = () => server.close();
    inspector = server;

    // The rest runs once startDaemon has resolved (a macrotask later), so a
    // caller that subscribes right away sees every event from the tunnel's
    // `connecting` on.
    const startBackground = (async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (abort.signal.aborted) return;
      if (server) emit({ event: 'inspector', url: server.url, link: server.newLink() });
      for (const note of startNotes) emit({ event: 'log', ...note });
      const skippedNote = skippedLinesNote(config.dataDir, store.skippedLines());
      if (skippedNote) emit({ event: 'log', level: 'warn', message: skippedNote });
      report({ type: 'daemon.started' });
      tunnel = await startTunnelKeeper({
        config,
        localPort: proxy.port,
        acceptConnection: (socket) => proxy.acceptConnection(socket),
        instanceId,
        logger,
        emit,
        report,
        signal: abort.signal,
        remember: (patch) => updateProjectState(config.dataDir, patch).then(() => undefined),
        env: options.baseEnv,
        ...(options.tunnel ? { tuning: options.tunnel } : {}),
      });
    })().catch((error: unknown) => {
      if (abort.signal.aborted) return;
      emit(errorEvent(error, 'tunnel_start_failed'));
    });
    running.tunnel = async () => {
      await startBackground;
      await tunnel?.close();
    };

    let closing: Promise<void> | undefined;
    let resolveClosed!: () => void;
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
    return {
      events: { on: (listener) => hub.on(listener) },
      note: (message, level = 'info') => emit({ event: 'log', level, message }),
      snapshot: () => hub.snapshot(),
      proxyUrl: proxy.url,
      instanceId,
      handleCommand,
      closed,
      killNow: () => child.killNow(),
      close() {
        closing ??= dispatch({ type: 'shutdown.requested' }).then(() => {
          emit({ event: 'tunnel', state: 'closed' });
          resolveClosed();
        });
        return closing;
      },
    };
  } catch (error) {
    await shutdown();
    throw dataDirError(error, config.dataDir) ?? error;
  }
}
