import { CONNECT_MESSAGES } from '../../src/median/messages.js';
import type { MedianPost } from './median-post.js';

/** A status and a JSON body, ready to send. */
export interface RouteAnswer {
  status: number;
  body: unknown;
}

export interface ConnectOptions {
  /** The server's MEDIAN_KEY (already checked to equal the caller's Bearer key). */
  key: string;
  /** MEDIAN_TOOLS_URL: this route's public address. */
  toolsUrl: string | undefined;
  /** Median API base, e.g. https://api.median.sh. */
  apiUrl: string;
  /** How many tools the route serves, for the success message. */
  toolCount: number;
  /** How the POST to Median is sent (median-post.ts). */
  post: MedianPost;
  /** Median gets 10 s to answer. */
  timeoutMs: number;
}

function error(status: number, code: string, message: string): RouteAnswer {
  return { status, body: { error: { code, message } } };
}

function isHttpUrl(value: string | undefined): value is string {
  if (value === undefined || value.trim() === '') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false; // not parseable: not a URL
  }
}

/** Median's `{error: {code, message}}`, when the text is one. */
function medianError(text: string): { code: string; message: string } | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } } | null;
    const code = parsed?.error?.code;
    const message = parsed?.error?.message;
    if (typeof code === 'string' && code !== '' && typeof message === 'string') return { code, message };
  } catch {
    // not JSON: handled as a refusal without Median's words
  }
  return undefined;
}

function endpointUrl(text: string, fallback: string): string {
  try {
    const url = (JSON.parse(text) as { endpoint?: { url?: unknown } } | null)?.endpoint?.url;
    return typeof url === 'string' && url !== '' ? url : fallback;
  } catch {
    return fallback; // a 2xx without JSON still connected; show what we asked for
  }
}

/**
 * Connects this route (tool-errors.txt, "Connect errors"): asks the Median API
 * to add MEDIAN_TOOLS_URL as a tool endpoint. Median's own errors pass through
 * with its status, code and message; the sync runs after Median answers.
 */
export async function connectEndpoint(options: ConnectOptions): Promise<RouteAnswer> {
  if (!isHttpUrl(options.toolsUrl)) return error(400, 'median_endpoint_unknown', CONNECT_MESSAGES.endpointUnknown);
  const toolsUrl = options.toolsUrl;

  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), options.timeoutMs);
  timer.unref();
  let status: number;
  let text: string;
  try {
    ({ status, text } = await options.post(`${options.apiUrl.replace(/\/+$/, '')}/v1/tool-endpoints`, {
      headers: {
        authorization: `Bearer ${options.key}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ url: toolsUrl }),
      signal: abort.signal,
    }));
  } catch {
    // DNS, refused connection, TLS or the 10 s timeout: all "could not be reached".
    return error(502, 'median_unreachable', CONNECT_MESSAGES.unreachable);
  } finally {
    clearTimeout(timer);
  }

  if (status >= 200 && status < 300) {
    return {
      status: 200,
      body: {
        connected: true,
        endpoint: endpointUrl(text, toolsUrl),
        tools: options.toolCount,
        message: CONNECT_MESSAGES.connected(options.toolCount),
      },
    };
  }
  const refusal = medianError(text);
  const answerStatus = status >= 400 ? status : 502;
  if (refusal) return error(answerStatus, refusal.code, refusal.message);
  return error(answerStatus, 'median_refused_connection', CONNECT_MESSAGES.refusedConnection(status));
}
