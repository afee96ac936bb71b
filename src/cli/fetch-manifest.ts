import { signBody, SIGNATURE_HEADER } from '../median/signature.js';
import { SYNC_LIMITS, judgeSyncAnswer, type SyncFetchOutcome, type SyncJudgement } from '../median/sync-rules.js';
import { httpFetch, type HttpAnswer } from '../shared/http-fetch.js';

export interface ManifestFetch {
  url: string;
  outcome: SyncFetchOutcome;
  judgement: SyncJudgement;
  /** The raw JSON when the body parsed, for showing every problem. */
  json: unknown;
}

/** How the GET is sent: httpFetch by default; doctor's read through the tunnel passes a public-URL fetch. */
export type ManifestFetcher = (url: string, init: { headers: Record<string, string>; redirect: 'manual'; signal: AbortSignal }) => Promise<HttpAnswer>;

/** A signed GET of the route, judged by the same rules a Median sync applies. */
export async function fetchManifest(url: string, secret: Uint8Array, options: { timeoutMs?: number; fetch?: ManifestFetcher } = {}): Promise<ManifestFetch> {
  const timeoutMs = options.timeoutMs ?? SYNC_LIMITS.timeoutMs;
  const doFetch: ManifestFetcher = options.fetch ?? httpFetch;
  let outcome: SyncFetchOutcome;
  try {
    const response = await doFetch(url, {
      headers: { [SIGNATURE_HEADER]: signBody(secret, ''), 'user-agent': 'median-dev' },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = new Uint8Array(await response.arrayBuffer());
    outcome = {
      kind: 'answer',
      status: response.status,
      headers: Object.fromEntries(response.headers.entries()),
      body,
      bodyTooLarge: body.byteLength > SYNC_LIMITS.maxManifestBytes,
    };
  } catch {
    outcome = { kind: 'no-answer' };
  }
  let json: unknown;
  if (outcome.kind === 'answer') {
    try {
      json = JSON.parse(Buffer.from(outcome.body).toString('utf8'));
    } catch {
      json = undefined;
    }
  }
  return { url, outcome, judgement: judgeSyncAnswer(outcome, url), json };
}
