import { SIGNATURE_HEADER, signBody, type SyncFetchOutcome } from '../median/index.js';
import { sendOutbound, type HostResolver } from './outbound-request.js';

export interface ManifestFetchOptions {
  url: string;
  secret: Uint8Array;
  now: () => number;
  timeoutMs: number;
  maxManifestBytes: number;
  resolvers: readonly HostResolver[];
  signal?: AbortSignal;
}

/**
 * A sync's read of the manifest: a signed `GET <endpoint url>` (empty body),
 * once, within the time limit, never following a redirect, reading at most
 * `maxManifestBytes`. Undefined when aborted (the emulator is closing).
 */
export async function fetchManifest(options: ManifestFetchOptions): Promise<SyncFetchOutcome | undefined> {
  const result = await sendOutbound({
    method: 'GET',
    url: options.url,
    headers: {
      accept: 'application/json',
      'user-agent': 'median-emulator (sync)',
      [SIGNATURE_HEADER]: signBody(options.secret, '', options.now()),
    },
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxManifestBytes,
    resolvers: options.resolvers,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  switch (result.kind) {
    case 'answer':
      return { kind: 'answer', status: result.status, headers: result.headers, body: result.body };
    case 'too-large':
      return { kind: 'answer', status: result.status, headers: result.headers, body: new Uint8Array(0), bodyTooLarge: true };
    case 'timeout':
    case 'connection':
      return { kind: 'no-answer' };
    case 'aborted':
      return undefined;
    default: {
      const never: never = result;
      return never;
    }
  }
}
