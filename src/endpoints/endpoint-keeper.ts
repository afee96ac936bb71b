import type { Endpoint, MedianApiClient } from '../median/api-client.js';
import { connectFix } from '../median/connect-fixes.js';
import { sameMessage, SYNC_MESSAGES } from '../median/messages.js';
import { syncFix } from '../median/sync-fixes.js';
import { MedianDevError, errorCode, receivedErrorCode, type ErrorCode } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { systemClock, type Clock } from '../shared/clock.js';
import type { NewDaemonEvent } from '../events/daemon-events.js';
import { DEFAULT_RETRY_POLICY, createApiRetry, type RetryPolicy } from './api-retry.js';
import { parseClash } from './clash-message.js';
import { clashAdvice } from './clash-advice.js';
import { ourEndpoints, type ProjectMemory } from './classify-endpoints.js';
import { ownerOf, type EndpointOwner } from './endpoint-owner.js';
import { notOursRefusal } from './not-ours-refusal.js';
import { openRouteRetrying, routeUrlOf, type RouteConnectOutcome } from './route-connect-retry.js';
import { settleWhileStarting, stillFailingFix } from './starting-retry.js';
import { mayTouchEndpoint } from './endpoint-trust.js';
import { decideProductionGuard, type ProductionGuardDecision } from './production-guard.js';
import { createFreshList } from './fresh-list.js';

export interface EndpointKeeperOptions {
  /** A getter: key rotation swaps the client. */
  api(): MedianApiClient;
  readMemory(): Promise<ProjectMemory>;
  remember(patch: { endpointId: string; toolsUrl: string }): Promise<void>;
  /** Opens the route once with `Authorization: Bearer <MEDIAN_KEY>` (the docs' curl). */
  openRoute(): Promise<RouteConnectOutcome>;
  autoFix: boolean;
  emit(event: NewDaemonEvent): void;
  logger?: Logger;
  syncTimeoutMs?: number;
  /** How `rate_limited`, timeouts and 5xx are tried again (bounded); injectable for tests. */
  retry?: Partial<RetryPolicy>;
  /** Where the route is, for messages (a function: the dev server's origin may be found later). */
  routeUrl: string | (() => string);
  /** The configured tunnel server's domains: endpoints there are dev tunnels, not production. */
  tunnelDomains?: readonly string[];
  signal?: AbortSignal;
  /** What the pauses between tries wait on (tests drive it); real time when left out. */
  clock?: Clock;
  /**
   * When median-dev last (re)started the dev server or saw it reload its env
   * (ms on `clock`; undefined: it started none): a sync that finds it still
   * starting within `retry.starting`'s window is asked again, not reported.
   */
  devServerStartingSince?: () => number | undefined;
}

export interface EndpointKeeper {
  /**
   * Makes Median's endpoint for this project point at `toolsUrl`, synced.
   * It connects: ask `productionGuard()` first.
   */
  ensure(toolsUrl: string): Promise<Endpoint | undefined>;
  /**
   * Syncs the current endpoint (a --watch change, `s`, `median-dev sync`);
   * throws `endpoint_not_connected` when Median has none at `toolsUrl`.
   */
  sync(toolsUrl: string): Promise<Endpoint | undefined>;
  /**
   * Whether this project may connect `toolsUrl` into the key's organisation:
   * not onto a production endpoint's origin, and not into an organisation
   * holding production without --allow-production-org.
   */
  productionGuard(toolsUrl?: string): Promise<ProductionGuardDecision>;
  /** After a key rotation: open the route again so Median binds the new key. */
  reconnect(toolsUrl: string): Promise<Endpoint | undefined>;
}

const MAX_HEALS = 5;

export function createEndpointKeeper(options: EndpointKeeperOptions): EndpointKeeper {
  const logger = options.logger ?? silentLogger;
  const tunnelDomains = options.tunnelDomains ?? [];
  const mayTouch = (endpoint: Endpoint, memory: ProjectMemory): boolean => mayTouchEndpoint(endpoint, memory, tunnelDomains);
  const clock = options.clock ?? systemClock;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const waitOptions = { ...(options.syncTimeoutMs ? { timeoutMs: options.syncTimeoutMs } : {}), ...(options.signal ? { signal: options.signal } : {}) };
  const withRetry = createApiRetry({
    policy,
    emit: options.emit,
    signal: options.signal,
    clock: options.clock,
  });

  type EndpointExtra = { fix?: string; otherUrl?: string; otherOwner?: EndpointOwner | null; tool?: string };
  function emitEndpoint(action: Extract<NewDaemonEvent, { event: 'endpoint' }>['action'], endpoint: Endpoint, extra: EndpointExtra = {}) {
    // A failed sync carries the docs' fix for its message.
    const fix = extra.fix ?? (action === 'sync-failed' ? syncFix(endpoint.error) : undefined);
    options.emit({
      event: 'endpoint',
      action,
      id: endpoint.id,
      url: endpoint.url,
      error: endpoint.error,
      tools: endpoint.tools,
      ...extra,
      ...(fix ? { fix } : {}),
    });
  }

  function emitError(code: ErrorCode, message: string, hint?: string) {
    options.emit({ event: 'error', code, message, ...(hint ? { hint } : {}) });
  }

  async function findByUrl(url: string): Promise<Endpoint | undefined> {
    const endpoints = await withRetry('reading the endpoint list', () => options.api().listEndpoints());
    return endpoints.find((e) => e.url === url);
  }

  const openRouteWithRetry = (): Promise<RouteConnectOutcome> => openRouteRetrying(options.openRoute, withRetry);

  async function connectThroughRoute(toolsUrl: string): Promise<Endpoint | undefined> {
    const outcome = await openRouteWithRetry();
    if (outcome.kind === 'unreachable') {
      emitError(
        'route_unreachable',
        `Could not open the route at ${routeUrlOf(options)} to connect it: ${outcome.reason}.`,
        'Start your dev server (or pass its command after --); median-dev connects the endpoint once the route answers.',
      );
      return undefined;
    }
    const body = outcome.body as { connected?: unknown; error?: { code?: unknown; message?: unknown } } | null;
    if (outcome.status >= 200 && outcome.status < 300 && body && body.connected === true) {
      const endpoint = await findByUrl(toolsUrl);
      if (!endpoint) {
        emitError('endpoint_missing', `The route said it connected, but Median lists no endpoint at ${toolsUrl}.`, 'Check that the dev server has MEDIAN_TOOLS_URL and the same MEDIAN_API_URL as median-dev.');
        return undefined;
      }
      emitEndpoint('connected', endpoint);
      return endpoint;
    }
    if (outcome.status >= 200 && outcome.status < 300) {
      // A success that is not a connect answer: whatever answered is not the median() route.
      emitError(
        'connect_answer_unexpected',
        `The route at ${routeUrlOf(options)} answered ${outcome.status} to the connect request, but not with {"connected": true}: something other than the median() route answers there.`,
        'Check that --target and --route point at the route that serves median() (for example http://localhost:3000 and /api/median).',
      );
      return undefined;
    }
    const code = typeof body?.error?.code === 'string' ? body.error.code : `http_${outcome.status}`;
    const message = typeof body?.error?.message === 'string' ? body.error.message : `The route answered ${outcome.status} to the connect request.`;
    if (code === 'duplicate_endpoint') {
      const endpoint = await findByUrl(toolsUrl);
      if (endpoint && !mayTouch(endpoint, await options.readMemory())) {
        refuseNotOurs(endpoint);
        return undefined;
      }
      if (endpoint) {
        emitEndpoint('adopted', endpoint);
        return withRetry('asking for a sync', () => options.api().sync(toolsUrl));
      }
    }
    emitError(receivedErrorCode(code), message, connectFix(code, message) ?? 'Check the route’s logs: it answered the connect request with an error.');
    return undefined;
  }

  /**
   * Waits for the sync; heals a clash with this project's own old endpoint,
   * and a refused signature by opening the route once (both bounded).
   */
  async function settle(endpoint: Endpoint, toolsUrl: string, askedAt: number): Promise<Endpoint> {
    let current = endpoint;
    let asked = askedAt;
    let hasReconnected = false;
    let hasWaited = false; // for a dev server still starting: a failure after that says so
    for (let heal = 0; ; heal++) {
      current = await settleWhileStarting(current, asked, {
        policy: policy.starting,
        startingSince: options.devServerStartingSince,
        waitForSync: (pending) => options.api().waitForSync(pending.id, waitOptions),
        syncAgain: () => withRetry('asking for a sync', () => options.api().sync(toolsUrl)),
        onWaiting: (failed) => { hasWaited = true; emitEndpoint('waiting', failed); },
        clock, signal: options.signal,
      });
      if (current.status === 'synced') {
        emitEndpoint('synced', current);
        return current;
      }
      if (current.error !== null && sameMessage(current.error, SYNC_MESSAGES.refusedSignature) && options.autoFix && !hasReconnected) {
        // The docs' fix is "Reconnect": open the route once, so Median binds the key the route holds.
        hasReconnected = true;
        emitEndpoint('sync-failed', current);
        logger.info('The route refused the sync signature: opening it once to reconnect.');
        asked = clock.now();
        const reconnected = await connectThroughRoute(toolsUrl);
        if (!reconnected) return current;
        current = reconnected;
        continue;
      }
      const clash = parseClash(current.error);
      if (!clash) {
        emitEndpoint('sync-failed', current, hasWaited ? { fix: stillFailingFix(current.error, policy.starting.windowMs) } : {});
        return current;
      }
      const memory = await options.readMemory();
      const other = await findByUrl(clash.otherUrl);
      const otherOwner = other === undefined ? undefined : ownerOf(other, ourEndpoints(memory), tunnelDomains);
      const isOurs = other !== undefined && other.id !== current.id && otherOwner === 'this-project' && mayTouch(other, memory);
      if (!other || !isOurs || !options.autoFix || heal >= MAX_HEALS) {
        emitEndpoint('sync-failed', current);
        emitEndpoint('clash', current, {
          fix: clashAdvice({ tool: clash.tool, otherUrl: clash.otherUrl, otherOwner }),
          otherUrl: clash.otherUrl,
          otherOwner: otherOwner ?? null,
          tool: clash.tool,
        });
        return current;
      }
      await withRetry('removing the old endpoint', () => options.api().removeEndpoint(other.id)).catch((error: unknown) => {
        // Gone already (a retried removal that had gone through): what we wanted.
        if (errorCode(error) !== 'endpoint_not_found') throw error;
      });
      emitEndpoint('removed', other, { otherOwner: 'this-project' });
      logger.info(`Removed this project's old endpoint ${other.url}, whose tools clashed.`);
      asked = clock.now();
      current = await withRetry('asking for a sync', () => options.api().sync(toolsUrl));
    }
  }

  /** An endpoint at our URL that median-dev may not take over: said with its class, left as it is. */
  function refuseNotOurs(endpoint: Endpoint): void {
    const refusal = notOursRefusal(endpoint, tunnelDomains);
    emitError(refusal.code, refusal.message, refusal.hint);
  }

  /** The production guard's list, for the `ensure` right after it (fresh-list.ts). */
  const guardList = createFreshList(clock);
  async function ensure(toolsUrl: string): Promise<Endpoint | undefined> {
    const askedAt = clock.now();
    const memory = await options.readMemory();
    const endpoints = guardList.take(options.api()) ?? (await withRetry('reading the endpoint list', () => options.api().listEndpoints()));
    let endpoint = endpoints.find((e) => e.url === toolsUrl);
    if (endpoint) {
      if (endpoint.id !== memory.endpointId) {
        // Taking over an endpoint median-dev did not connect: only one of this project's history, never production's.
        if (!mayTouch(endpoint, memory)) {
          refuseNotOurs(endpoint);
          return undefined;
        }
        emitEndpoint('adopted', endpoint);
      }
      // Already there (a restart under the same hostname): sync, since the tools may have changed meanwhile.
      if (endpoint.status !== 'pending') endpoint = await withRetry('asking for a sync', () => options.api().sync(toolsUrl));
    } else {
      const previous =
        endpoints.find((e) => e.id === memory.endpointId) ??
        (memory.toolsUrl ? endpoints.find((e) => e.url === memory.toolsUrl) : undefined);
      if (previous && options.autoFix && mayTouch(previous, memory)) {
        try {
          endpoint = await withRetry('changing the endpoint', () => options.api().changeEndpoint(previous.id, toolsUrl));
          emitEndpoint('changed', endpoint);
        } catch (error) {
          const code = errorCode(error);
          if (code === 'duplicate_endpoint') endpoint = await findByUrl(toolsUrl);
          else if (code !== 'endpoint_not_found') throw error;
        }
      }
      endpoint ??= await connectThroughRoute(toolsUrl);
    }
    if (!endpoint) return undefined;
    await options.remember({ endpointId: endpoint.id, toolsUrl });
    return settle(endpoint, toolsUrl, askedAt);
  }

  async function sync(toolsUrl: string): Promise<Endpoint | undefined> {
    const askedAt = clock.now();
    try {
      const endpoint = await withRetry('asking for a sync', () => options.api().sync(toolsUrl));
      return await settle(endpoint, toolsUrl, askedAt);
    } catch (error) {
      // No endpoint to sync: the caller connects one (after the production guard), not this sync.
      if (errorCode(error) === 'endpoint_not_found' || errorCode(error) === 'no_endpoint') {
        throw new MedianDevError('endpoint_not_connected', `Median has no endpoint at ${toolsUrl} to sync.`, { cause: error });
      }
      throw error;
    }
  }

  async function reconnect(toolsUrl: string): Promise<Endpoint | undefined> {
    const askedAt = clock.now();
    const endpoint = await connectThroughRoute(toolsUrl);
    if (!endpoint) return undefined;
    await options.remember({ endpointId: endpoint.id, toolsUrl });
    return settle(endpoint, toolsUrl, askedAt);
  }

  /** The production guard's facts for the key in use (its organisation's endpoints, this project's memory), decided by the pure `decideProductionGuard`; asked before every connect. */
  async function productionGuard(toolsUrl?: string): Promise<ProductionGuardDecision> {
    const api = options.api();
    const askedAt = clock.now();
    const [memory, endpoints] = await Promise.all([options.readMemory(), withRetry('reading the endpoint list', () => api.listEndpoints())]);
    guardList.keep(endpoints, askedAt, api);
    return decideProductionGuard(endpoints, memory, { ...(toolsUrl === undefined ? {} : { toolsUrl }), tunnelDomains });
  }

  return { ensure, sync, reconnect, productionGuard };
}
