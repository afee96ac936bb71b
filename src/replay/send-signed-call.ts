import { REPLAY_OF_HEADER } from '../median/call-record.js';
import { signBody, SIGNATURE_HEADER } from '../median/signature.js';
import { MedianDevError } from '../shared/errors.js';
import { httpFetch, type HttpAnswer } from '../shared/http-fetch.js';
import type { Clock } from '../shared/clock.js';

export interface SignedSendOptions {
  url: string;
  body: string;
  secret: Uint8Array;
  /** Sign at now + offset (negative: in the past). */
  atOffsetMs?: number;
  now?: () => number;
  /** The record this repeats, for our proxy: its `replayMarker`, made with the proxy's replay key. */
  replayMarker?: string;
  timeoutMs?: number;
  /** The clock `timeoutMs` runs on (a test drives it); left out, real time. */
  clock?: Clock;
}

export interface SignedSendResult {
  status: number;
  headers: Record<string, string>;
  body: string;
  durationMs: number;
  signedAt: number;
}

/** POSTs a signed tool call the way Median does (no redirects followed). */
export async function sendSignedCall(options: SignedSendOptions): Promise<SignedSendResult> {
  const signedAt = (options.now ?? Date.now)() + (options.atOffsetMs ?? 0);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'median-dev',
    [SIGNATURE_HEADER]: signBody(options.secret, options.body, signedAt),
  };
  if (options.replayMarker) headers[REPLAY_OF_HEADER] = options.replayMarker;
  const started = performance.now();
  const timeout = timeoutSignal(options.timeoutMs ?? 30_000, options.clock);
  let response: HttpAnswer;
  try {
    response = await httpFetch(options.url, {
      method: 'POST',
      headers,
      body: options.body,
      redirect: 'manual',
      signal: timeout.signal,
    });
  } catch (error) {
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    timeout.cancel();
    throw new MedianDevError('route_unreachable', `Could not reach the route at ${options.url} (${reason}).`, {
      hint: 'Is the dev server (or median-dev start) running? Check --target and --route.',
      cause: error,
    });
  }
  let body: string;
  try {
    body = await response.text();
  } finally {
    timeout.cancel();
  }
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    body,
    durationMs: performance.now() - started,
    signedAt,
  };
}

/** Aborts with a `TimeoutError`, as AbortSignal.timeout does, after `ms` on `clock` (real time without one). */
function timeoutSignal(ms: number, clock: Clock | undefined): { signal: AbortSignal; cancel(): void } {
  if (!clock) return { signal: AbortSignal.timeout(ms), cancel: () => undefined };
  const controller = new AbortController();
  const timer = clock.setTimer(() => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')), ms);
  return { signal: controller.signal, cancel: () => timer.cancel() };
}
