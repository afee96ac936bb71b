import type { StartConfig } from '../config/index.js';
import { missingKeyHint, readProjectState, readSettledEnvFile, updateProjectState, writeToolsUrl } from '../config/index.js';
import { createEndpointKeeper } from '../endpoints/index.js';
import { createMedianApiClient, keyFingerprint, type Endpoint, type MedianApiClient } from '../median/index.js';
import { MedianDevError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { NewDaemonEvent } from '../events/index.js';
import { buildChildEnv, createChildKeeper } from '../child/index.js';
import { openRouteWithKey } from './route-opener.js';
import { isRouteAnswering, waitForRoute } from './route-readiness.js';
import { pause } from '../shared/delay.js';

/**
 * On shutdown the dev server gets 2 s after SIGTERM before SIGKILL (restarts
 * give it 5 s), so SIGINT still exits within the 3 s the SPEC promises.
 */
const SHUTDOWN_GRACE_MS = 2_000;


export interface UrlKeeperOptions {
  config: StartConfig;
  /** The proxy's origin: the route is opened through it, so the connect is recorded. */
  proxyUrl: string;
  childCommand: string[];
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** The env file's variables when the daemon started. */
  fileVars: Record<string, string>;
  emit(event: NewDaemonEvent): void;
  /** A key rotation: the proxy and the recorder follow the new key. */
  onKeyChanged(key: string | undefined): void;
  logger: Logger;
  signal: AbortSignal;
  timing: Partial<{ routeReadyTimeoutMs: number; syncTimeoutMs: number; childStopGraceMs: number; routeRecheckMaxMs: number }>;
  /** Queues a task on the daemon's serial queue (a retry once the route answers again). */
  enqueue(task: () => Promise<void>): void;
  /** The daemon's own pid: the owner written beside the child's, so only a dead owner's child is ever reaped. */
  daemonPid: number;
}

/**
 * Keeps MEDIAN_TOOLS_URL true everywhere (SPEC §2.1): on each new public
 * origin the env file, then the child, then the endpoint. It also follows
 * MEDIAN_KEY in the env file. Its tasks run one at a time (the daemon's queue).
 */
export interface UrlKeeper {
  /** The MEDIAN_KEY in use (a rotation changes it). */
  key(): string | undefined;
  applyOrigin(origin: string): Promise<void>;
  /** Starts the child at the tools URL of the last run, so the dev server compiles while the tunnel opens. */
  startAtRememberedUrl(): Promise<void>;
  /** Re-reads the env file: a changed MEDIAN_KEY is a key rotation. */
  envFileChanged(): Promise<void>;
  /** Syncs the endpoint (`s`, `median-dev sync`); throws when there is nothing to sync. */
  sync(): Promise<void>;
  /** Syncs after watched files changed, when there is an endpoint to sync. */
  watchedFilesChanged(count: number): Promise<void>;
  restartChild(): Promise<void>;
  /** Stops the child with the short shutdown grace. */
  closeChild(): Promise<void>;
  /** SIGKILLs the child's tree at once. */
  killChildNow(): void;
}

export function createUrlKeeper(options: UrlKeeperOptions): UrlKeeper {
  const { config, emit, logger, timing } = options;
  let medianKey = config.medianKey;
  let fileVars = options.fileVars;
  /** The MEDIAN_KEY the env file held last. */
  let fileKey = fileVars.MEDIAN_KEY || undefined;
  /** The tools URL applied last (announced, in the env file). */
  let toolsUrl: string | undefined;
  /** The MEDIAN_TOOLS_URL the running child got. */
  let childUrl: string | undefined;
  // The Median API client follows the key (a rotation swaps it).
  let api: MedianApiClient | undefined = clientFor(medianKey);

  function clientFor(key: string | undefined): MedianApiClient | undefined {
    return key ? createMedianApiClient({ baseUrl: config.medianApi, key, logger }) : undefined;
  }
  const keyHint = `${missingKeyHint(config.envFile)} median-dev picks it up.`;
  const requireApi = (): MedianApiClient => {
    if (!api) throw new MedianDevError('missing_key', 'No MEDIAN_KEY is set, so median-dev cannot reach Median.', { hint: keyHint });
    return api;
  };

  const endpoints = createEndpointKeeper({
    api: requireApi,
    readMemory: async () => {
      const state = await readProjectState(config.dataDir);
      return {
        endpointId: state.endpointId,
        toolsUrl: state.toolsUrl,
        tunnelUrls: state.tunnelUrls,
        allowProductionOrg: config.allowProductionOrg ?? state.allowProductionOrg,
      };
    },
    remember: async ({ endpointId, toolsUrl: url }) => {
      const state = await readProjectState(config.dataDir);
      const urls = new Set(state.tunnelUrls ?? []);
      urls.add(url);
      await updateProjectState(config.dataDir, { endpointId, toolsUrl: url, tunnelUrls: [...urls] });
    },
    openRoute: () =>
      openRouteWithKey({
        url: `${options.proxyUrl}${config.route}`,
        key: () => medianKey,
        readyTimeoutMs: timing.routeReadyTimeoutMs ?? 60_000,
        signal: options.signal,
      }),
    autoFix: config.autoFix,
    emit,
    logger,
    routeUrl: `${config.target}${config.route}`,
    signal: options.signal,
    ...(timing.syncTimeoutMs ? { syncTimeoutMs: timing.syncTimeoutMs } : {}),
  });

  const child = createChildKeeper({
    command: options.childCommand,
    cwd: config.cwd,
    env: () => buildChildEnv(options.baseEnv, fileVars, childUrl, config.keySource === 'env-file' && medianKey ? { MEDIAN_KEY: medianKey } : {}),
    emit,
    logger,
    orphanNote: { dataDir: config.dataDir, ownerPid: options.daemonPid },
    ...(timing.childStopGraceMs ? { stopGraceMs: timing.childStopGraceMs } : {}),
  });

  /** The endpoint's sync reaches the route only once the restarted dev server answers. */
  const childAnswering = () =>
    waitForRoute({
      url: `${config.target}${config.route}`,
      timeoutMs: timing.routeReadyTimeoutMs ?? 60_000,
      isWorthWaiting: () => child.isRunning,
      signal: options.signal,
    });

  /**
   * The endpoint could not be fixed because the dev server did not answer
   * (not started yet, crashed, started later by hand): check the route now
   * and then, backing off to every 30 s, and fix the endpoint again once it
   * answers. One check at a time; it ends with the daemon.
   */
  let isRetryScheduled = false;
  function retryWhenRouteAnswers(url: string): void {
    if (isRetryScheduled) return;
    isRetryScheduled = true;
    void (async () => {
      const routeUrl = `${config.target}${config.route}`;
      // Answering now: the failure was not the dev server's absence; do not loop on it.
      if (await isRouteAnswering(routeUrl, { timeoutMs: 2_000, signal: options.signal })) {
        isRetryScheduled = false;
        return;
      }
      let wait = 1_000;
      const maxWait = timing.routeRecheckMaxMs ?? 30_000;
      while (!options.signal.aborted) {
        await pause(wait, options.signal);
        wait = Math.min(wait * 2, maxWait);
        if (options.signal.aborted || url !== toolsUrl) break;
        const answers = await isRouteAnswering(routeUrl, { timeoutMs: 2_000, signal: options.signal });
        if (!answers) continue;
        emit({ event: 'log', level: 'info', message: 'The dev server answers again: fixing the endpoint.' });
        isRetryScheduled = false;
        options.enqueue(async () => {
          if (url !== toolsUrl || !api) return;
          const endpoint = await endpoints.ensure(url);
          if (isWaitingForRoute(endpoint)) retryWhenRouteAnswers(url);
        });
        return;
      }
      isRetryScheduled = false;
    })();
  }

  return {
    key: () => medianKey,

    async applyOrigin(origin) {
      const url = `${origin}${config.route}`;
      if (url !== toolsUrl) {
        toolsUrl = url;
        if (config.envFile && (await writeToolsUrl(config.envFile, url))) fileVars = { ...fileVars, MEDIAN_TOOLS_URL: url };
        emit({ event: 'tools-url', url, envFile: config.envFile });
        // The data dir knows the URL in use even before Median does: `median-dev sync` asks for it.
        await updateProjectState(config.dataDir, { toolsUrl: url }).catch((error: unknown) =>
          logger.warn(`Could not note the tools URL in ${config.dataDir}: ${error instanceof Error ? error.message : String(error)}`),
        );
      }
      if (child.hasCommand && (url !== childUrl || !child.isStarted)) {
        childUrl = url;
        await child.restart();
      }
      if (child.hasCommand) await childAnswering();
      if (!api) {
        emit({
          event: 'error',
          code: 'missing_key',
          message: 'No MEDIAN_KEY is set, so the endpoint cannot be connected.',
          hint: keyHint.replace('picks it up.', 'picks it up and connects.'),
        });
        return;
      }
      const endpoint = await endpoints.ensure(url);
      if (isWaitingForRoute(endpoint)) retryWhenRouteAnswers(url);
    },

    async startAtRememberedUrl() {
      if (!child.hasCommand || child.isStarted) return;
      const previous = await readProjectState(config.dataDir);
      if (!previous.toolsUrl?.endsWith(config.route) || child.isStarted) return;
      childUrl = previous.toolsUrl;
      await child.restart();
    },

    async envFileChanged() {
      if (!config.envFile) return;
      fileVars = await readSettledEnvFile(config.envFile);
      // A key read from a later file of the env cascade (`.env`) stays in effect while the env file sets none.
      const cascadeKey = config.keyFile !== undefined && config.keyFile !== config.envFile ? config.medianKey : undefined;
      const nextKey = fileVars.MEDIAN_KEY || cascadeKey;
      const isFileKeyChange = nextKey !== fileKey;
      fileKey = nextKey;
      if (config.keySource === 'env') {
        // The environment's key wins over the file's: say so rather than ignore the edit silently.
        if (isFileKeyChange && nextKey) {
          emit({
            event: 'log',
            level: 'warn',
            message: `MEDIAN_KEY changed in ${config.envFile}, but median-dev uses the MEDIAN_KEY of its environment, which wins over the file's. Restart median-dev without MEDIAN_KEY in the environment to use the new key.`,
          });
        }
        return;
      }
      if (nextKey === medianKey) return;
      medianKey = nextKey;
      api = clientFor(medianKey);
      options.onKeyChanged(medianKey);
      emit({
        event: 'log',
        level: 'info',
        message: `MEDIAN_KEY changed in ${config.envFile} (now ${medianKey ? keyFingerprint(medianKey) : 'unset'}): reconnecting the endpoint with the new key.`,
      });
      if (child.isStarted) {
        await child.restart();
        await childAnswering();
      }
      if (toolsUrl && api) await endpoints.reconnect(toolsUrl);
    },

    async sync() {
      if (!toolsUrl) throw new MedianDevError('no_tools_url', 'The tunnel has not given a public URL yet, so there is nothing to sync.');
      requireApi();
      await endpoints.sync(toolsUrl);
    },

    async watchedFilesChanged(count) {
      if (!toolsUrl || !api) return;
      emit({ event: 'log', level: 'info', message: `${count} watched file${count === 1 ? '' : 's'} changed: syncing.` });
      await endpoints.sync(toolsUrl);
    },

    restartChild: () => child.restart(),
    closeChild: () => child.close({ graceMs: SHUTDOWN_GRACE_MS }),
    killChildNow: () => child.killNow(),
  };
}

/** Median could not reach the route (no endpoint yet, or a sync that found the dev server down). */
function isWaitingForRoute(endpoint: Endpoint | undefined): boolean {
  if (endpoint === undefined) return true;
  if (endpoint.status !== 'failed' || !endpoint.error) return false;
  return /did not answer|answered 50[234]\b/.test(endpoint.error);
}
