import { REPLAY_OF_HEADER, signBody, SIGNATURE_HEADER } from '../median/index.js';
import { MedianDevError } from '../shared/errors.js';

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
  let response: Response;
  try {
    response = await fetch(options.url, {
      method: 'POST',
      headers,
      body: options.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
  } catch (error) {
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new MedianDevError('route_unreachable', `Could not reach the route at ${options.url} (${reason}).`, {
      hint: 'Is the dev server (or median-dev start) running? Check --target and --route.',
      cause: error,
    });
  }
  const body = await response.text();
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    body,
    durationMs: performance.now() - started,
    signedAt,
  };
}
