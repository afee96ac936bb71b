import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Endpoint } from '../../../src/median/index.js';
import { createRouteRetry, type ProductionGuardDecision } from '../../../src/endpoints/index.js';
import { MedianDevError } from '../../../src/shared/errors.js';
import type { DaemonFact, NewDaemonEvent } from '../../../src/events/index.js';
import { createDispatch, type Dispatch, type DispatchParts } from '../../../src/daemon/dispatch.js';
import { createEnvVars } from '../../../src/daemon/env-vars.js';
import { createKeyRotation } from '../../../src/daemon/key-rotation.js';
import { createSerialQueue } from '../../../src/daemon/serial-queue.js';
import { createShutdown, type RunningParts } from '../../../src/daemon/shutdown.js';
import { createToolsUrlWriter } from '../../../src/daemon/tools-url-writer.js';
import type { ChildRestartPolicy } from '../../../src/daemon/child-restart-policy.js';
import { errorEvent } from '../../../src/events/index.js';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { useTeardown } from '../../helpers/use-teardown.js';

export const ROUTE = '/api/median';
export const KEY = `median_key_${'Dispatch1'.repeat(4)}abcd`;
export const OTHER_KEY = `median_key_${'Rotated22'.repeat(4)}wxyz`;

/** A promise and the functions that settle it. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export interface DispatchWorld {
  dispatch: Dispatch;
  /** Every step any part took, in order (`envFile MEDIAN_TOOLS_URL=…`, `child.restartFor …`, `endpoint.ensure …`). */
  steps: string[];
  events: NewDaemonEvent[];
  envFile: string;
  readEnvFile(): Promise<string>;
  /** The next `waitUntilAnswering` waits for this (the dev server still compiling); replaced after each use. */
  holdRoute(): { release(): void };
  /** What `endpoint.ensure` answers next (default: synced). */
  ensureAnswers: Array<Endpoint | undefined>;
  /** What the production guard decides next (default: proceed, noted in no step); a stop is noted as `endpoint.productionGuard stop`. */
  guardAnswers: ProductionGuardDecision[];
  /** How many next `endpoint.sync` calls find no endpoint at Median (the keeper's `endpoint_not_connected`). */
  syncsWithoutEndpoint: { count: number };
  /** The key the proxy, recorder and masker were told to follow, in order. */
  followedKeys: Array<string | undefined>;
  /** Whether the shutdown's abort happened. */
  signal: AbortSignal;
  closeOrder: string[];
}

/**
 * The daemon's dispatch with its real queue, tools-URL writer (a real env
 * file in a temp dir), key rotation (re-reading that file), route retry
 * (against `routeUrl`, a real server on 127.0.0.1) and shutdown; the dev
 * server and Median's endpoint are stand-ins that note each step, so the
 * order of a heal can be read off `steps`.
 */
export async function useDispatch(options: { routeUrl?: string; key?: string; isChildStarted?: boolean } = {}): Promise<DispatchWorld> {
  const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-dispatch-')), (d) => rm(d, { recursive: true, force: true }));
  const envFile = join(dir, '.env.local');
  const key = options.key ?? KEY;
  await writeFile(envFile, `MEDIAN_KEY=${key}\n`);
  const abort = new AbortController();
  useTeardown(abort, (a) => a.abort());
  const steps: string[] = [];
  const events: NewDaemonEvent[] = [];
  const emit = (event: NewDaemonEvent) => events.push(event);
  const logger = createRecordingLogger();
  const readEnv = () => readFile(envFile, 'utf8');
  const toolsUrlLine = async () => /MEDIAN_TOOLS_URL=(\S*)/.exec(await readEnv())?.[1] ?? 'none';

  let routeGate: Promise<void> | undefined;
  let isChildStarted = options.isChildStarted ?? true;
  let childUrl: string | undefined;
  /**
   * Stands in for child-restart-policy.ts: notes what the dev server would
   * see (the env file's MEDIAN_TOOLS_URL when it restarts); waitUntilAnswering
   * resolves when the test releases the route, or at once on abort, as the
   * real waitForRoute does.
   */
  const child: ChildRestartPolicy = {
    hasCommand: true,
    get isStarted() {
      return isChildStarted;
    },
    async restartFor(url) {
      // As the real policy: a dev server already running with this URL is left alone.
      if (url === childUrl && isChildStarted) return;
      steps.push(`child.restartFor ${url} (env file says ${await toolsUrlLine()})`);
      childUrl = url;
      isChildStarted = true;
    },
    async waitUntilAnswering() {
      steps.push('child.waitUntilAnswering');
      const gate = routeGate;
      routeGate = undefined;
      if (gate) {
        await Promise.race([gate, new Promise<void>((resolve) => abort.signal.addEventListener('abort', () => resolve(), { once: true }))]);
      }
      steps.push('route answers');
    },
    async startAtRememberedUrl() {
      steps.push('child.startAtRememberedUrl');
    },
    get toolsUrl() {
      return childUrl;
    },
    startingSince: undefined,
    async startLocally() {
      if (isChildStarted) return;
      steps.push(`child.startLocally (env file says ${await toolsUrlLine()})`);
      childUrl = /MEDIAN_TOOLS_URL=(\S*)/.exec(await readEnv())?.[1];
      isChildStarted = true;
    },
    async restart() {
      steps.push('child.restart');
    },
    async followKey(source) {
      steps.push(`child.followKey ${source === undefined ? 'unknown' : basename(source)}`);
    },
    close: async () => undefined,
    killNow: () => undefined,
  };

  const ensureAnswers: Array<Endpoint | undefined> = [];
  const guardAnswers: ProductionGuardDecision[] = [];
  const syncsWithoutEndpoint = { count: 0 };
  const synced = (url: string): Endpoint => ({ id: 'ep_1', url, status: 'synced', error: null, tools: [], createdAt: '2026-01-01T00:00:00.000Z', syncedAt: null });
  /** Stands in for the endpoint keeper: notes each call; ensure answers from `ensureAnswers`, else synced. */
  const endpoint: DispatchParts['endpoint'] = {
    async ensure(url) {
      steps.push(`endpoint.ensure ${url}`);
      return ensureAnswers.length > 0 ? ensureAnswers.shift() : synced(url);
    },
    async sync(url) {
      steps.push(`endpoint.sync ${url}`);
      if (syncsWithoutEndpoint.count > 0) {
        syncsWithoutEndpoint.count -= 1;
        throw new MedianDevError('endpoint_not_connected', `Median has no endpoint at ${url} to sync.`);
      }
      return synced(url);
    },
    async reconnect(url) {
      steps.push(`endpoint.reconnect ${url}`);
      return synced(url);
    },
    async productionGuard() {
      const decision = guardAnswers.shift() ?? { kind: 'proceed', production: [] };
      if (decision.kind === 'stop') steps.push('endpoint.productionGuard stop');
      return decision;
    },
  };

  let dispatch!: Dispatch;
  const report = (fact: DaemonFact) => void dispatch(fact);
  const vars = createEnvVars({ MEDIAN_KEY: key });
  const config = { envFile, keyFile: envFile, keySource: 'env-file' as const, medianKey: key, medianApi: 'http://127.0.0.1:9' };
  const keys = createKeyRotation({ config, vars, emit, report, logger });
  // Its note in the data dir is written before the folder goes (clean-ups run newest first).
  const toolsUrl = useTeardown(createToolsUrlWriter({ envFile, dataDir: join(dir, 'data'), vars, emit, logger }), (w) => w.noted());
  const queue = createSerialQueue((error) => {
    if (!abort.signal.aborted) emit(errorEvent(error));
  });
  const closeOrder: string[] = [];
  const note = (name: string) => async () => void closeOrder.push(name);
  const running: RunningParts = {
    tunnel: note('tunnel'),
    watcher: note('watcher'),
    queue: async () => {
      await queue.close();
      closeOrder.push('queue');
    },
    child: note('child'),
    inspector: note('inspector'),
    control: note('control'),
    proxy: note('proxy'),
    recorder: note('recorder'),
    toolsUrlNote: () => toolsUrl.noted(),
  };
  const followedKeys: Array<string | undefined> = [];
  dispatch = createDispatch({
    route: ROUTE,
    envFile,
    queue,
    toolsUrl,
    child,
    keys,
    endpoint,
    routeRetry: createRouteRetry({
      routeUrl: options.routeUrl ?? 'http://127.0.0.1:9/api/median',
      isCurrent: (url) => url === toolsUrl.current(),
      report,
      emit,
      firstWaitMs: 20,
      maxWaitMs: 40,
      signal: abort.signal,
    }),
    followKey: (k) => followedKeys.push(k),
    replay: async (command) => {
      steps.push(`replay ${command.toolCallId}`);
      return { replayed: true };
    },
    sendDiagnostics: async () => ({ status: 200 }),
    simulateHostnameChange: async () => void steps.push('simulate-hostname-change'),
    decideEmulatorApproval: async (command) => {
      steps.push(`${command.decision} ${command.id}`);
      return { decided: true };
    },
    clearRecords: () => void steps.push('clear'),
    inspectorLink: () => {
      steps.push('inspector-link');
      return { url: 'http://127.0.0.1:4040', link: 'http://127.0.0.1:4040/session?token=t' };
    },
    shutdown: createShutdown(running, { abort: () => abort.abort(), logger }),
    emit,
  });
  return {
    dispatch,
    steps,
    events,
    envFile,
    readEnvFile: readEnv,
    holdRoute() {
      const gate = deferred();
      routeGate = gate.promise;
      return { release: () => gate.resolve() };
    },
    ensureAnswers,
    guardAnswers,
    syncsWithoutEndpoint,
    followedKeys,
    signal: abort.signal,
    closeOrder,
  };
}
