import {
  checkToolsAcrossEndpoints,
  judgeSyncAnswer,
  SYNC_MESSAGES,
  SYNC_REQUEST_MESSAGES,
  CONNECT_MESSAGES,
  keyFingerprint,
  RUN_MESSAGES,
  type Endpoint,
  type EndpointTool,
  type ManifestTool,
  type SyncFetchOutcome,
} from '../median/index.js';
import type { Logger } from '../shared/index.js';
import { ApiError } from './api-error.js';
import { endpointUrlKey } from './endpoint-url-rules.js';
import { heldManifestAnswer } from './held-endpoint.js';
import type { EmulatorLimits } from './emulator-limits.js';
import type { RateLimiter } from './rate-limiter.js';

/** One connected endpoint, with what the public `Endpoint` does not show. */
export interface EndpointRecord {
  id: string;
  url: string;
  status: Endpoint['status'];
  error: string | null;
  tools: EndpointTool[];
  /** The last good manifest's tools (risk, inputSchema), for calls. */
  manifestTools: ManifestTool[];
  /** Each tool's switch by name, kept across syncs and Change endpoint. */
  switches: Map<string, boolean>;
  createdAt: string;
  /** Creation order: breaks createdAt ties when deciding which is newer. */
  order: number;
  syncedAt: string | null;
  /**
   * The Median key that connected the endpoint: its syncs, calls and
   * diagnostics are signed with this key's secret, even once it is revoked,
   * until a connect with another key rebinds it.
   */
  key: string;
  /** Syncs of one endpoint run one after the other. */
  queue: Promise<unknown>;
  /** Set for an endpoint the emulator answers for itself (production, a teammate's tunnel): its manifest. */
  held?: ManifestTool[];
}

export interface EndpointRegistryOptions {
  limits: EmulatorLimits;
  now: () => number;
  newId: () => string;
  syncRate: RateLimiter;
  logger: Logger;
  /** The signed GET of a sync, signed with `key`'s secret; undefined when aborted. */
  fetchManifest: (url: string, key: string) => Promise<SyncFetchOutcome | undefined>;
}

export type EndpointRegistry = ReturnType<typeof createEndpointRegistry>;

/**
 * The organization's tool endpoints and their syncs: the state behind the
 * emulated API, with the docs' errors as ApiError.
 */
export function createEndpointRegistry(options: EndpointRegistryOptions) {
  const { limits, now, logger } = options;
  const records = new Map<string, EndpointRecord>();
  let order = 0;
  const iso = (): string => new Date(now()).toISOString();

  function snapshot(record: EndpointRecord): Endpoint {
    return {
      id: record.id,
      url: record.url,
      status: record.status,
      error: record.error,
      tools: record.tools.map((t) => ({ ...t })),
      createdAt: record.createdAt,
      syncedAt: record.syncedAt,
    };
  }

  function byUrl(url: string): EndpointRecord | undefined {
    const key = endpointUrlKey(url);
    return [...records.values()].find((r) => endpointUrlKey(r.url) === key);
  }

  /** By id, or the docs' "no longer available" 404. */
  function byId(id: string): EndpointRecord {
    const record = records.get(id);
    if (!record) throw new ApiError(404, 'endpoint_not_found', SYNC_REQUEST_MESSAGES.endpointGone);
    return record;
  }

  function isCurrent(record: EndpointRecord, url: string): boolean {
    return records.get(record.id) === record && record.url === url;
  }

  async function runSync(record: EndpointRecord): Promise<void> {
    const { url, key } = record;
    record.status = 'pending';
    record.error = null;
    let outcome: SyncFetchOutcome | undefined;
    try {
      outcome = record.held ? heldManifestAnswer(record.held) : await options.fetchManifest(url, key);
    } catch (error) {
      logger.error('emulator: sync failed unexpectedly', { url, error: String(error) });
      if (isCurrent(record, url)) fail(record, SYNC_MESSAGES.couldNotSync);
      return;
    }
    // Aborted, removed, or moved to another URL meanwhile: this result is stale.
    if (outcome === undefined || !isCurrent(record, url)) return;
    const judged = judgeSyncAnswer(outcome, url);
    if (!judged.ok) return fail(record, judged.message);
    const names = judged.manifest.tools.map((t) => t.name);
    const problem = acrossEndpoints(record, names);
    if (problem) return fail(record, problem);
    for (const name of names) if (!record.switches.has(name)) record.switches.set(name, true);
    record.manifestTools = judged.manifest.tools;
    record.tools = names.map((name) => ({ name, enabled: record.switches.get(name) ?? true }));
    record.status = 'synced';
    record.error = null;
    record.syncedAt = iso();
    logger.info('emulator: endpoint synced', { id: record.id, url, tools: names.length });
  }

  /**
   * Clash and 20-tool rules against the OTHER endpoints' last good tool sets.
   * On a clash the newer endpoint fails, so only older endpoints can clash
   * with this one; newer ones still count toward the total (without the
   * names they would lose to this one).
   */
  function acrossEndpoints(record: EndpointRecord, names: string[]): string | undefined {
    const others = [...records.values()].filter((r) => r !== record);
    const older = others.filter((r) => r.order < record.order).map((r) => ({ url: r.url, toolNames: r.tools.map((t) => t.name) }));
    const clash = checkToolsAcrossEndpoints({ url: record.url, toolNames: names }, older, Number.POSITIVE_INFINITY);
    if (clash) return clash.message;
    const newer = others
      .filter((r) => r.order > record.order)
      .map((r) => ({ url: r.url, toolNames: r.tools.map((t) => t.name).filter((n) => !names.includes(n)) }));
    return checkToolsAcrossEndpoints({ url: record.url, toolNames: names }, [...older, ...newer], limits.maxTools)?.message;
  }

  function fail(record: EndpointRecord, message: string): void {
    // A failed sync keeps the last good tool set.
    record.status = 'failed';
    record.error = message;
    logger.warn('emulator: sync failed', { id: record.id, url: record.url, error: message });
  }

  /** Queues a sync of the record's current URL; resolves when it ran. */
  function queueSync(record: EndpointRecord): Promise<Endpoint> {
    record.status = 'pending';
    record.error = null;
    const run = record.queue.then(() => (records.get(record.id) === record ? runSync(record) : undefined));
    record.queue = run.catch((error: unknown) => logger.error('emulator: sync crashed', { error: String(error) }));
    return record.queue.then(() => snapshot(record));
  }

  /** A manual sync (Sync, Change endpoint): rate limited, shown as a failed sync. */
  function manualSync(record: EndpointRecord): { endpoint: Promise<Endpoint>; retryAfterSeconds?: number } {
    const decision = options.syncRate.take();
    if (!decision.allowed) {
      fail(record, SYNC_MESSAGES.rateLimited);
      return { endpoint: Promise.resolve(snapshot(record)), retryAfterSeconds: decision.retryAfterSeconds };
    }
    return { endpoint: queueSync(record) };
  }

  /**
   * Connect (opening the route) with the caller's `key`. A URL that is
   * already connected is reconnected (the docs' key-rotation recipe opens
   * the route again), not refused: it keeps its id and switches, is bound
   * to `key` from now on, and syncs again.
   */
  function connect(url: string, key: string): { record: EndpointRecord; created: boolean } {
    const existing = byUrl(url);
    if (existing) {
      if (existing.key !== key) {
        existing.key = key;
        logger.info('emulator: endpoint bound to another key', { id: existing.id, url, key: keyFingerprint(key) });
      }
      existing.status = 'pending';
      existing.error = null;
      return { record: existing, created: false };
    }
    if (records.size >= limits.maxEndpoints) {
      throw new ApiError(400, 'too_many_tool_endpoints', CONNECT_MESSAGES.tooManyEndpoints);
    }
    const record: EndpointRecord = {
      id: options.newId(),
      url,
      status: 'pending',
      error: null,
      tools: [],
      manifestTools: [],
      switches: new Map(),
      createdAt: iso(),
      order: ++order,
      syncedAt: null,
      key,
      queue: Promise.resolve(),
    };
    records.set(record.id, record);
    logger.info('emulator: endpoint connected', { id: record.id, url });
    return { record, created: true };
  }

  return {
    list(): Endpoint[] {
      return [...records.values()].sort((a, b) => a.order - b.order).map(snapshot);
    },
    records(): EndpointRecord[] {
      return [...records.values()].sort((a, b) => a.order - b.order);
    },
    snapshot,
    connect,
    /**
     * OUR extension: an endpoint the emulator answers for itself (a production
     * deployment, a teammate's tunnel), connected like any other (the 10
     * endpoint limit, bound to `key`) and synced against the same rules.
     * Holding a URL that is connected already replaces its manifest.
     */
    hold(url: string, tools: ManifestTool[], key: string): { record: EndpointRecord; synced: Promise<Endpoint> } {
      const { record } = connect(url, key);
      record.held = tools;
      return { record, synced: queueSync(record) };
    },
    /** An automatic sync (before a new conversation's first reply): not rate limited; resolves when it ran. */
    syncNow: (record: EndpointRecord): Promise<Endpoint> => queueSync(record),
    /** The sync after a connect's answer. */
    syncInBackground(record: EndpointRecord): void {
      void queueSync(record);
    },
    byId,
    /** POST /v1/tool-endpoints/sync[?url=]: which endpoint, or the docs' errors. */
    pickForSync(url: string | undefined): EndpointRecord {
      if (url !== undefined) {
        const record = byUrl(url);
        if (!record) throw new ApiError(404, 'endpoint_not_found', SYNC_REQUEST_MESSAGES.endpointNotFound(url));
        return record;
      }
      if (records.size === 0) throw new ApiError(400, 'no_endpoint', SYNC_REQUEST_MESSAGES.noEndpoint);
      if (records.size > 1) throw new ApiError(400, 'endpoint_required', SYNC_REQUEST_MESSAGES.endpointRequired);
      return [...records.values()][0] as EndpointRecord;
    },
    manualSync,
    /** Change endpoint: a new URL for the same endpoint; switches and the bound key are kept. */
    change(record: EndpointRecord, url: string): void {
      const other = byUrl(url);
      if (other && other !== record) throw new ApiError(400, 'duplicate_endpoint', CONNECT_MESSAGES.duplicateEndpoint);
      record.url = url;
    },
    /** OUR extension: a tool's switch (Agent → Tools). */
    setToolEnabled(record: EndpointRecord, tool: string, enabled: boolean): void {
      if (!record.tools.some((t) => t.name === tool)) {
        throw new ApiError(404, 'tool_not_found', RUN_MESSAGES.unavailableOrDisabled(tool));
      }
      record.switches.set(tool, enabled);
      record.tools = record.tools.map((t) => (t.name === tool ? { name: t.name, enabled } : t));
    },
    /**
     * The endpoint and manifest entry a call to `tool` goes to: the oldest
     * endpoint whose last good tool set has it switched on. Throws the docs'
     * `tool_not_found` when no endpoint declares it, or none has it on.
     */
    findTool(tool: string, endpointUrl?: string): { record: EndpointRecord; tool: ManifestTool } {
      let candidates = [...records.values()].sort((a, b) => a.order - b.order);
      if (endpointUrl !== undefined) {
        const record = byUrl(endpointUrl);
        if (!record) throw new ApiError(404, 'endpoint_not_found', SYNC_REQUEST_MESSAGES.endpointNotFound(endpointUrl));
        candidates = [record];
      }
      const declaring = candidates.filter((r) => r.tools.some((t) => t.name === tool));
      if (declaring.length === 0) throw new ApiError(404, 'tool_not_found', RUN_MESSAGES.notSwitchedOn(tool));
      for (const record of declaring) {
        const on = record.tools.some((t) => t.name === tool && t.enabled);
        const entry = record.manifestTools.find((t) => t.name === tool);
        if (on && entry) return { record, tool: entry };
      }
      throw new ApiError(404, 'tool_not_found', RUN_MESSAGES.unavailableOrDisabled(tool));
    },
    remove(record: EndpointRecord): void {
      records.delete(record.id);
      logger.info('emulator: endpoint removed', { id: record.id, url: record.url });
    },
    /** Resolves once every queued sync has run (for close()). */
    settled(): Promise<unknown> {
      return Promise.allSettled([...records.values()].map((r) => r.queue));
    },
  };
}
