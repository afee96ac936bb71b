import { randomBytes } from 'node:crypto';
import type { StartConfig } from '../config/index.js';
import { readEnvFile, readProjectState, updateProjectState } from '../config/index.js';
import { createMedianApiClient, keyFingerprint, resolveToolSecret, type CallRecord, type MedianApiClient } from '../median/index.js';
import { MedianDevError, errorCode } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import type { ControlCommand, DaemonEvent, DaemonSnapshot } from '../shared/daemon-events.js';
import { createCallStore, openRecorder, type Recorder } from '../recorder/index.js';
import { startRecordingProxy, type RecordingProxy } from '../proxy/index.js';
import { readControlFile, startControlServer, type ControlServer } from '../control/index.js';
import { createEndpointKeeper } from '../endpoints/index.js';
import { startFileWatcher, type FileWatcher } from '../watch/index.js';
import { sendSignedCall } from '../replay/index.js';
import { buildChildEnv } from './child-env.js';
import { createChildKeeper, type ChildKeeper } from './child-keeper.js';
import { createCommandHandler } from './command-handler.js';
import { writeToolsUrl } from './env-file-writer.js';
import { createEventHub } from './event-hub.js';
import { createRecordSink } from './record-sink.js';
import { openRouteWithKey } from './route-opener.js';
import { createSerialQueue } from './serial-queue.js';
import { startTunnelKeeper, type TunnelKeeper, type TunnelTuning } from './tunnel-keeper.js';

export interface DaemonOptions {
  config: StartConfig;
  /** The dev server command (after `--`), or empty. */
  childCommand: string[];
  /** The environment the child inherits (the CLI passes process.env). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  version: string;
  /** This process's pid, written to control.json (the CLI passes process.pid). */
  pid: number;
  logger?: Logger;
  isDemo?: boolean;
  /** Test and demo knobs. */
  timing?: Partial<{ routeReadyTimeoutMs: number; syncTimeoutMs: number; childStopGraceMs: number; watchDebounceMs: number }>;
  /** Tunnel knobs (tests: fast backoff; demo: the hostname-change hook). */
  tunnel?: TunnelTuning;
}

export interface Daemon {
  events: { on(listener: (event: DaemonEvent) => void): () => void };
  snapshot(): DaemonSnapshot;
  proxyUrl: string;
  instanceId: string;
  /** What the control channel and the TUI send (replay, sync, …). */
  handleCommand(command: ControlCommand): Promise<unknown>;
  /** Resolves once close() has finished. */
  closed: Promise<void>;
  /** Closes everything in order; the endpoint stays registered for the next start. */
  close(): Promise<void>;
}

const at = () => new Date().toISOString();

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { config } = options;
  const logger = options.logger ?? silentLogger;
  const timing = options.timing ?? {};
  const instanceId = randomBytes(8).toString('hex');
  const abort = new AbortController();

  const running = await readControlFile(config.dataDir).catch(() => undefined);
  if (running && !running.isStale) {
    throw new MedianDevError('daemon_already_running', `median-dev is already running for ${config.dataDir} (pid ${running.pid}, proxy ${running.proxyUrl}).`, {
      hint: 'Attach to it with `median-dev watch`, stop it first, or pass another --data-dir.',
    });
  }

  let medianKey = config.medianKey;
  let fileVars = config.envFile ? await readEnvFile(config.envFile) : {};
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
    callCount: await store.count().catch(() => recent.length),
    records: recent.slice().reverse(),
  });
  const emit = (event: DaemonEvent) => hub.emit(event);

  // Parts, closed in reverse dependency order by shutdown().
  let recorder: Recorder | undefined;
  let proxy: RecordingProxy | undefined;
  let control: ControlServer | undefined;
  let tunnel: TunnelKeeper | undefined;
  let watcher: FileWatcher | undefined;
  let child: ChildKeeper | undefined;
  const queue = createSerialQueue((error) => {
    if (abort.signal.aborted) return;
    const hint = error instanceof MedianDevError ? error.hint : undefined;
    emit({ event: 'error', at: at(), code: errorCode(error) ?? 'internal_error', message: describe(error), ...(hint ? { hint } : {}) });
  });
  const shutdown = async () => {
    abort.abort(new MedianDevError('daemon_closed', 'The daemon is closing.'));
    const step = async (name: string, close: (() => Promise<void>) | undefined) => {
      try {
        await close?.();
      } catch (error) {
        logger.warn(`closing the ${name}: ${describe(error)}`);
      }
    };
    await step('tunnel', tunnel && (() => tunnel!.close()));
    await step('file watcher', watcher && (() => watcher!.close()));
    await step('task queue', () => queue.close());
    await step('dev server', child && (() => child!.close()));
    await step('control channel', control && (() => control!.close()));
    await step('proxy', proxy && (() => proxy!.close()));
    await step('recorder', recorder && (() => recorder!.close()));
  };

  try {
    recorder = await openRecorder({ dataDir: config.dataDir, secrets: medianKey ? [medianKey] : [], redactVisitor: config.redactVisitor, logger });
    const onRecord = createRecordSink(recorder, emit);
    proxy = await startRecordingProxy({
      target: config.target,
      route: config.route,
      port: config.port,
      ...(secretFor(medianKey) ? { secret: secretFor(medianKey)! } : {}),
      instanceId,
      logger,
      onRecord,
    }).catch((error: unknown) => {
      if (errorCode(error) === 'EADDRINUSE' || errorCode(error) === 'proxy_port_in_use') {
        throw new MedianDevError('proxy_port_in_use', `Port ${config.port} on 127.0.0.1 is taken, so the proxy cannot listen there.`, {
          hint: 'Another median-dev may be running (`median-dev watch` attaches to it), or pass --port 0 for any free port.',
          cause: error,
        });
      }
      throw error;
    });
  } catch (error) {
    await shutdown();
    throw error;
  }
  const prox = proxy;
  emit({ event: 'proxy', at: at(), url: prox.url });

  try {
    await updateProjectState(config.dataDir, { target: config.target, route: config.route, proxyUrl: prox.url, medianApi: config.medianApi });

    // The Median API client follows the key (a rotation swaps it).
    let api: MedianApiClient | undefined = medianKey ? createMedianApiClient({ baseUrl: config.medianApi, key: medianKey, logger }) : undefined;
    const requireApi = (): MedianApiClient => {
      if (!api) {
        throw new MedianDevError('missing_key', 'No MEDIAN_KEY is set, so median-dev cannot reach Median.', {
          hint: `Put MEDIAN_KEY=median_key_… in ${config.envFile ?? 'the environment'}; median-dev picks it up.`,
        });
      }
      return api;
    };

    let toolsUrl: string | undefined;
    const keeper = createEndpointKeeper({
      api: requireApi,
      readMemory: async () => {
        const state = await readProjectState(config.dataDir);
        return { endpointId: state.endpointId, toolsUrl: state.toolsUrl, tunnelUrls: state.tunnelUrls };
      },
      remember: async ({ endpointId, toolsUrl: url }) => {
        const state = await readProjectState(config.dataDir);
        const urls = new Set(state.tunnelUrls ?? []);
        urls.add(url);
        await updateProjectState(config.dataDir, { endpointId, toolsUrl: url, tunnelUrls: [...urls] });
      },
      openRoute: () =>
        openRouteWithKey({ url: `${prox.url}${config.route}`, key: () => medianKey, readyTimeoutMs: timing.routeReadyTimeoutMs ?? 60_000, signal: abort.signal }),
      autoFix: config.autoFix,
      emit,
      logger,
      routeUrl: `${config.target}${config.route}`,
      signal: abort.signal,
      ...(timing.syncTimeoutMs ? { syncTimeoutMs: timing.syncTimeoutMs } : {}),
    });

    const ch = createChildKeeper({
      command: options.childCommand,
      cwd: config.cwd,
      env: () => buildChildEnv(options.baseEnv, fileVars, toolsUrl, config.keySource === 'env-file' && medianKey ? { MEDIAN_KEY: medianKey } : {}),
      emit,
      logger,
      ...(timing.childStopGraceMs ? { stopGraceMs: timing.childStopGraceMs } : {}),
    });
    child = ch;

    /** SPEC §2.1: on a new public URL, the env file, then the child, then the endpoint. */
    const applyPublicOrigin = async (origin: string): Promise<void> => {
      const url = `${origin}${config.route}`;
      const isChange = url !== toolsUrl || !ch.isStarted;
      toolsUrl = url;
      if (isChange) {
        if (config.envFile && (await writeToolsUrl(config.envFile, url))) fileVars = { ...fileVars, MEDIAN_TOOLS_URL: url };
        emit({ event: 'tools-url', at: at(), url, envFile: config.envFile });
        await ch.restart();
      }
      if (!api) {
        emit({
          event: 'error',
          at: at(),
          code: 'missing_key',
          message: 'No MEDIAN_KEY is set, so the endpoint cannot be connected.',
          hint: `Put MEDIAN_KEY=median_key_… in ${config.envFile ?? 'the environment'}; median-dev picks it up and connects.`,
        });
        return;
      }
      await keeper.ensure(url);
    };

    // A key rotation in the env file: new secret, new client, restart, reconnect.
    const onEnvFileChanged = async (): Promise<void> => {
      if (!config.envFile) return;
      fileVars = await readEnvFile(config.envFile);
      if (config.keySource === 'env') return; // the environment's key wins over the file's
      const nextKey = fileVars.MEDIAN_KEY || undefined;
      if (nextKey === medianKey) return;
      medianKey = nextKey;
      hub.setKeyFingerprint(medianKey ? keyFingerprint(medianKey) : null);
      api = medianKey ? createMedianApiClient({ baseUrl: config.medianApi, key: medianKey, logger }) : undefined;
      prox.setSecret(secretFor(medianKey));
      if (medianKey) recorder?.addSecret(medianKey);
      emit({
        event: 'log',
        at: at(),
        level: 'info',
        message: `MEDIAN_KEY changed in ${config.envFile} (now ${medianKey ? keyFingerprint(medianKey) : 'unset'}): reconnecting the endpoint with the new key.`,
      });
      if (ch.isStarted) await ch.restart();
      if (toolsUrl && api) await keeper.reconnect(toolsUrl);
    };

    const syncNow = () =>
      queue.run(async () => {
        if (!toolsUrl) throw new MedianDevError('no_tools_url', 'The tunnel has not given a public URL yet, so there is nothing to sync.');
        requireApi();
        await keeper.sync(toolsUrl);
      });

    // With a URL from the last run the child starts now, so the dev server
    // compiles while the tunnel opens; otherwise it starts with the first URL.
    const previous = await readProjectState(config.dataDir);
    if (ch.hasCommand && previous.toolsUrl?.endsWith(config.route)) {
      queue.push(async () => {
        if (ch.isStarted || toolsUrl) return;
        toolsUrl = previous.toolsUrl;
        await ch.restart();
      });
    }

    watcher = startFileWatcher({
      cwd: config.cwd,
      files: config.envFile ? [config.envFile] : [],
      globs: config.watch,
      debounceMs: timing.watchDebounceMs ?? 300,
      logger,
      onChange: (paths) => {
        if (config.envFile !== null && paths.includes(config.envFile)) queue.push(onEnvFileChanged);
        const watched = paths.filter((p) => p !== config.envFile);
        if (watched.length > 0 && toolsUrl && api) {
          emit({ event: 'log', at: at(), level: 'info', message: `${watched.length} watched file${watched.length === 1 ? '' : 's'} changed: syncing.` });
          queue.push(async () => {
            if (toolsUrl) await keeper.sync(toolsUrl);
          });
        }
      },
    });

    const tun = await startTunnelKeeper({
      config,
      localPort: prox.port,
      instanceId,
      logger,
      emit,
      signal: abort.signal,
      onOrigin: (origin) => queue.push(() => applyPublicOrigin(origin)),
      rememberSubdomain: (subdomain) => updateProjectState(config.dataDir, { subdomain }).then(() => undefined),
      ...(options.tunnel ? { tuning: options.tunnel } : {}),
    });
    tunnel = tun;

    const routeThroughProxy = `${prox.url}${config.route}`;
    const handleCommand = createCommandHandler({
      findCall: (id) => store.findByToolCallId(id),
      secret: () => secretFor(medianKey),
      routeUrl: routeThroughProxy,
      sync: syncNow,
      restartChild: () => queue.run(() => ch.restart()),
      simulateHostnameChange: () => tun.simulateHostnameChange(),
      async sendDiagnostics() {
        const secret = secretFor(medianKey);
        if (!secret) throw new MedianDevError('missing_key', 'A diagnostics request has to be signed, and no MEDIAN_KEY is set.');
        const answer = await sendSignedCall({ url: routeThroughProxy, body: '{"op":"diagnostics"}', secret });
        return { status: answer.status, durationMs: answer.durationMs };
      },
      clear: () => hub.clearRecords(),
    });

    control = await startControlServer({
      dataDir: config.dataDir,
      pid: options.pid,
      instanceId,
      proxyUrl: prox.url,
      snapshot: () => hub.snapshot(),
      handleCommand,
      logger,
    });
    const ctl = control;
    hub.on((event) => ctl.broadcast(event));

    let closing: Promise<void> | undefined;
    let resolveClosed!: () => void;
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
    return {
      events: { on: (listener) => hub.on(listener) },
      snapshot: () => hub.snapshot(),
      proxyUrl: prox.url,
      instanceId,
      handleCommand,
      closed,
      close() {
        closing ??= shutdown().then(() => {
          emit({ event: 'tunnel', at: at(), state: 'closed' });
          resolveClosed();
        });
        return closing;
      },
    };
  } catch (error) {
    await shutdown();
    throw error;
  }
}
