// Over 300 lines: one client for Median's whole endpoint API (list, create, change, remove, sync, wait), whose
// request, timeout, error-envelope and retry-after handling every call shares; the parsers at the end belong to it.
import { MedianDevError, errorCode, isMedianDevError, receivedErrorCode } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { CONNECT_MESSAGES } from './messages.js';
import { delayOrAbort } from '../shared/delay.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { httpFetch, type HttpFetch } from '../shared/http-fetch.js';

/**
 * A client for the Median API of SPEC §1.3. Every request has a timeout and is
 * sent once; Median's own errors come back as MedianDevError with Median's
 * code and message (details: {status, retryAfterSeconds?}).
 */

export type EndpointStatus = 'pending' | 'synced' | 'failed';

export interface EndpointTool {
  name: string;
  enabled: boolean;
}

export interface Endpoint {
  id: string;
  url: string;
  status: EndpointStatus;
  error: string | null;
  tools: EndpointTool[];
  createdAt: string;
  syncedAt: string | null;
}

export interface MedianApiClientOptions {
  /** `MEDIAN_API_URL`, e.g. `https://api.median.sh`. */
  baseUrl: string;
  /** `MEDIAN_KEY`, sent as `Authorization: Bearer <key>`. */
  key: string;
  /** Per request; default 10 s. */
  timeoutMs?: number;
  /** How requests are sent; default httpFetch (Node's own client). `fetch` itself fits. */
  fetch?: HttpFetch;
  logger?: Logger;
  /** What the request timeout, the sync polls and Retry-After dates are read on (tests drive it); real time when left out. */
  clock?: Clock;
}

export interface WaitForSyncOptions {
  /** Default 30 s. */
  timeoutMs?: number;
  /** Default 250 ms. */
  intervalMs?: number;
  signal?: AbortSignal;
}

export interface MedianApiClient {
  readonly baseUrl: string;
  listEndpoints(): Promise<Endpoint[]>;
  /** POST /v1/tool-endpoints: the sync runs after the answer (status `pending`). */
  connect(url: string): Promise<Endpoint>;
  /** POST /v1/tool-endpoints/sync[?url=]: answers once that sync finished. */
  sync(url?: string): Promise<Endpoint>;
  /** OUR extension, served by the emulator only: POST /v1/tool-endpoints/{id}/sync (the row's Sync). */
  syncById(id: string): Promise<Endpoint>;
  /** PATCH /v1/tool-endpoints/{id} ("Change endpoint"): keeps each tool's switch. */
  changeEndpoint(id: string, url: string): Promise<Endpoint>;
  removeEndpoint(id: string): Promise<{ removed: string }>;
  /** OUR extension, served by the emulator only: PATCH /v1/tool-endpoints/{id}/tools/{name}. */
  setToolEnabled(id: string, tool: string, enabled: boolean): Promise<Endpoint>;
  /** Polls GET /v1/tool-endpoints while the endpoint's status is `pending`. */
  waitForSync(id: string, options?: WaitForSyncOptions): Promise<Endpoint>;
}

export const DEFAULT_MEDIAN_API_TIMEOUT_MS = 10_000;
const DEFAULT_WAIT_TIMEOUT_MS = 30_000;
const DEFAULT_WAIT_INTERVAL_MS = 250;
/** Shown by waitForSync when the endpoint vanished while it waited. */
const ENDPOINT_GONE_MESSAGE = 'This tool endpoint is no longer available. Refresh the page.';

export function createMedianApiClient(options: MedianApiClientOptions): MedianApiClient {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_MEDIAN_API_TIMEOUT_MS;
  const doFetch = options.fetch ?? httpFetch;
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;

  async function request(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    const timeoutAbort = new AbortController();
    const timeout = timeoutAbort.signal;
    const timer = clock.setTimer(() => timeoutAbort.abort(new DOMException('The operation timed out.', 'TimeoutError')), timeoutMs);
    const combined = signal ? AbortSignal.any([timeout, signal]) : timeout;
    const url = baseUrl + path;
    const started = clock.now();
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const response = await doFetch(url, {
        method,
        headers: {
          authorization: `Bearer ${options.key}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: combined,
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      text = await response.text();
    } catch (error) {
      if (signal?.aborted && !timeout.aborted) throw signal.reason;
      if (timeout.aborted) {
        throw new MedianDevError(
          'median_timeout',
          `The Median API at ${baseUrl} did not answer ${method} ${path} within ${formatSeconds(timeoutMs)}. Check MEDIAN_API_URL and the network, then try again.`,
          { cause: error, details: { method, path, timeoutMs } },
        );
      }
      const reason = networkReason(error);
      throw new MedianDevError(
        'median_unreachable',
        `The Median API at ${baseUrl} could not be reached${reason ? ` (${reason})` : ''}. Check MEDIAN_API_URL and the network, then try again.`,
        { cause: error, hint: 'MEDIAN_API_URL (or --median-api) has to point at the Median API, e.g. https://api.median.sh or a running `median-dev emulate`.', details: { method, path } },
      );
    } finally {
      timer.cancel();
    }
    logger.debug('median api', { method, path, status, durationMs: clock.now() - started });
    const json = parseJson(text);
    if (status >= 200 && status < 300) {
      if (json === undefined) throw badAnswer(baseUrl, method, path, status, 'an answer that is not JSON');
      return json;
    }
    const apiError = readErrorEnvelope(json);
    const details: Record<string, unknown> = { status };
    const retryAfterSeconds = parseRetryAfter(retryAfter, clock.now());
    if (retryAfterSeconds !== undefined) details.retryAfterSeconds = retryAfterSeconds;
    if (apiError) throw new MedianDevError(receivedErrorCode(apiError.code), apiError.message, { details });
    // A 429 from something in front of Median (a gateway) still means: wait, then try again.
    if (status === 429) throw new MedianDevError('rate_limited', CONNECT_MESSAGES.rateLimited, { details });
    throw badAnswer(
      baseUrl,
      method,
      path,
      status,
      status >= 500 ? `HTTP ${status} and no error body of Median's: Median, or a proxy in front of it, is having trouble` : `HTTP ${status} without Median's error body`,
    );
  }

  async function endpointCall(method: string, path: string, body?: unknown): Promise<Endpoint> {
    const json = await request(method, path, body);
    const endpoint = isRecord(json) ? parseEndpoint(json.endpoint) : undefined;
    if (!endpoint) throw badAnswer(baseUrl, method, path, 200, 'an answer without a valid `endpoint`');
    return endpoint;
  }

  async function listEndpoints(signal?: AbortSignal): Promise<Endpoint[]> {
    const path = '/v1/tool-endpoints';
    const json = await request('GET', path, undefined, signal);
    const list = isRecord(json) && Array.isArray(json.endpoints) ? json.endpoints.map(parseEndpoint) : undefined;
    if (!list || list.some((e) => e === undefined)) {
      throw badAnswer(baseUrl, 'GET', path, 200, 'an answer without a valid `endpoints` list');
    }
    return list as Endpoint[];
  }

  return {
    baseUrl,
    listEndpoints: () => listEndpoints(),
    connect: (url) => endpointCall('POST', '/v1/tool-endpoints', { url }),
    sync: (url) =>
      endpointCall('POST', `/v1/tool-endpoints/sync${url === undefined ? '' : `?url=${encodeURIComponent(url)}`}`),
    syncById: (id) => endpointCall('POST', `/v1/tool-endpoints/${encodeURIComponent(id)}/sync`),
    changeEndpoint: (id, url) => endpointCall('PATCH', `/v1/tool-endpoints/${encodeURIComponent(id)}`, { url }),
    async removeEndpoint(id) {
      const path = `/v1/tool-endpoints/${encodeURIComponent(id)}`;
      const json = await request('DELETE', path);
      if (!isRecord(json) || typeof json.removed !== 'string') {
        throw badAnswer(baseUrl, 'DELETE', path, 200, 'an answer without `removed`');
      }
      return { removed: json.removed };
    },
    setToolEnabled: (id, tool, enabled) =>
      endpointCall('PATCH', `/v1/tool-endpoints/${encodeURIComponent(id)}/tools/${encodeURIComponent(tool)}`, {
        enabled,
      }),
    async waitForSync(id, waitOptions = {}) {
      const limitMs = waitOptions.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
      const intervalMs = waitOptions.intervalMs ?? DEFAULT_WAIT_INTERVAL_MS;
      const deadline = clock.now() + limitMs;
      for (;;) {
        waitOptions.signal?.throwIfAborted();
        let endpoints: Endpoint[];
        try {
          endpoints = await listEndpoints(waitOptions.signal);
        } catch (error) {
          // One failed poll (a 503, a 429, a slow answer) does not end the wait; the deadline does.
          const pauseMs = Math.max(intervalMs, retryAfterMs(error) ?? 0);
          if (!(isTransientMedianError(error) || errorCode(error) === 'rate_limited') || clock.now() + pauseMs > deadline) throw error;
          logger.debug('median api: polling the sync failed, polling again', { code: errorCode(error), pauseMs });
          await delayOrAbort(pauseMs, waitOptions.signal, clock);
          continue;
        }
        const endpoint = endpoints.find((e) => e.id === id);
        if (!endpoint) throw new MedianDevError('endpoint_not_found', ENDPOINT_GONE_MESSAGE, { details: { status: 404, id } });
        if (endpoint.status !== 'pending') return endpoint;
        if (clock.now() + intervalMs > deadline) {
          throw new MedianDevError(
            'median_timeout',
            `Median did not finish syncing ${endpoint.url} within ${formatSeconds(limitMs)}. Check the endpoint row with \`median-dev endpoints\` and sync again.`,
            { details: { id, timeoutMs: limitMs } },
          );
        }
        await delayOrAbort(intervalMs, waitOptions.signal, clock);
      }
    },
  };
}

/**
 * Whether trying the same request again later may work: no answer in time, no
 * connection, an answer that is not Median's, or a 5xx. Median's own 4xx
 * (`invalid_url`, `endpoint_not_found`, …) and `rate_limited` are not: the
 * first is a decision, the second has its own wait (retryAfterMs).
 */
export function isTransientMedianError(error: unknown): boolean {
  const code = errorCode(error);
  if (code === 'median_timeout' || code === 'median_unreachable' || code === 'median_bad_answer') return true;
  const status = isMedianDevError(error) ? Number(error.details?.status) : Number.NaN;
  return Number.isFinite(status) && status >= 500;
}

/** The wait Median asked for with `Retry-After` (in ms), when it gave one. */
export function retryAfterMs(error: unknown): number | undefined {
  const seconds = isMedianDevError(error) ? Number(error.details?.retryAfterSeconds) : Number.NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, Math.ceil((date - now) / 1000)) : undefined;
}

function normalizeBaseUrl(raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch (error) {
    throw new MedianDevError('invalid_median_api_url', `MEDIAN_API_URL is not a URL: "${raw}". Set it like https://api.median.sh.`, {
      cause: error,
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new MedianDevError('invalid_median_api_url', `MEDIAN_API_URL has to be an http(s) URL, not "${raw}".`);
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

function badAnswer(baseUrl: string, method: string, path: string, status: number, what: string): MedianDevError {
  return new MedianDevError(
    'median_bad_answer',
    `The Median API at ${baseUrl} answered ${method} ${path} with ${what}. Check that MEDIAN_API_URL points at the Median API.`,
    { details: { status, method, path } },
  );
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // Not JSON: the caller reports median_bad_answer.
  }
}

function readErrorEnvelope(json: unknown): { code: string; message: string } | undefined {
  if (!isRecord(json) || !isRecord(json.error)) return undefined;
  const { code, message } = json.error;
  return typeof code === 'string' && typeof message === 'string' ? { code, message } : undefined;
}

const STATUSES: readonly string[] = ['pending', 'synced', 'failed'];

/** The endpoint in Median's answer, or undefined when its shape is off. */
export function parseEndpoint(value: unknown): Endpoint | undefined {
  if (!isRecord(value)) return undefined;
  const { id, url, status, error, tools, createdAt, syncedAt } = value;
  if (typeof id !== 'string' || typeof url !== 'string' || typeof createdAt !== 'string') return undefined;
  if (typeof status !== 'string' || !STATUSES.includes(status)) return undefined;
  if (error !== null && typeof error !== 'string') return undefined;
  if (syncedAt !== null && typeof syncedAt !== 'string') return undefined;
  if (!Array.isArray(tools)) return undefined;
  const parsedTools: EndpointTool[] = [];
  for (const tool of tools) {
    if (!isRecord(tool) || typeof tool.name !== 'string' || typeof tool.enabled !== 'boolean') return undefined;
    parsedTools.push({ name: tool.name, enabled: tool.enabled });
  }
  return { id, url, status: status as EndpointStatus, error, tools: parsedTools, createdAt, syncedAt };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function networkReason(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    if (isRecord(current) && typeof current.code === 'string') return current.code;
    current = current instanceof Error ? current.cause : undefined;
  }
  return error instanceof Error ? error.message : undefined;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

