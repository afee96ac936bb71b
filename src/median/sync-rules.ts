import { BlockList, isIP } from 'node:net';
import { checkManifest } from './manifest-rules.js';
import { SYNC_MESSAGES } from './messages.js';
import type { Manifest } from './protocol.js';
import { bodyByteLength, headerValue, parseJsonBody } from './route-parser.js';

/** What a sync's signed GET got back. */
export type SyncFetchOutcome =
  | {
      kind: 'answer';
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: Uint8Array;
      /** The reader stopped at the limit: the body is larger than `body` holds. */
      bodyTooLarge?: boolean;
    }
  /** Timeout (10 s) or no connection. */
  | { kind: 'no-answer' };

export type SyncJudgement = { ok: true; manifest: Manifest } | { ok: false; message: string };

/**
 * The sync's limits. The docs say "Over 500 KB"; we read KB as 1024 bytes,
 * like MEDIAN_CALL_LIMITS' 100 KB (100 * 1024), so 512,000 bytes pass and one
 * more does not.
 */
export const SYNC_LIMITS = Object.freeze({ timeoutMs: 10_000, maxManifestBytes: 500 * 1024 });

const LOCAL_NAMES = new Set(['localhost', 'localhost.']);

function hostOf(url: string): { hostname: string; origin: string; protocol: string } | undefined {
  try {
    const parsed = new URL(url);
    const hostname = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
    return { hostname: hostname.toLowerCase(), origin: parsed.origin, protocol: parsed.protocol };
  } catch {
    // Not a URL: neither local nor private.
    return undefined;
  }
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addSubnet('0.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
loopback.addAddress('::', 'ipv6');

const privateRanges = new BlockList();
for (const [net, prefix] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
  ['100.64.0.0', 10],
] as const) {
  privateRanges.addSubnet(net, prefix, 'ipv4');
}
privateRanges.addSubnet('fc00::', 7, 'ipv6');
privateRanges.addSubnet('fe80::', 10, 'ipv6');

function inList(list: BlockList, hostname: string): boolean {
  const family = isIP(hostname);
  if (family === 0) return false;
  // BlockList also matches IPv4-mapped IPv6 (::ffff:10.0.0.1) against IPv4 rules.
  return list.check(hostname, family === 4 ? 'ipv4' : 'ipv6');
}

/** The URL is this machine: `localhost` (and `*.localhost`), 127/8, 0/8, `::1`. */
export function isLocalhostUrl(url: string): boolean {
  const host = hostOf(url);
  if (!host) return false;
  return LOCAL_NAMES.has(host.hostname) || /\.localhost\.?$/.test(host.hostname) || inList(loopback, host.hostname);
}

/**
 * The URL is an address inside a network: 10/8, 172.16/12, 192.168/16,
 * 169.254/16, 100.64/10, fc00::/7, fe80::/10, IPv4-mapped IPv6 forms included.
 * Only IP literals: we do not resolve names (Median's DNS view is not ours).
 */
export function isPrivateAddressUrl(url: string): boolean {
  const host = hostOf(url);
  return host !== undefined && inList(privateRanges, host.hostname);
}

/**
 * The sync error the cloud would give for this endpoint URL before fetching
 * it, if any (for `doctor`; the emulator syncs local URLs on purpose).
 */
export function cloudUrlProblem(url: string): string | undefined {
  if (isLocalhostUrl(url)) return SYNC_MESSAGES.ownMachine(hostOf(url)?.origin ?? url);
  if (isPrivateAddressUrl(url)) return SYNC_MESSAGES.privateAddress;
  return undefined;
}

/**
 * Where a redirect goes, when Median would name it: an https URL that is
 * neither local nor private. A relative Location is resolved against the
 * endpoint URL (that is where it leads).
 */
export function nameableRedirect(location: string | undefined, endpointUrl: string): string | undefined {
  if (location === undefined || location.trim() === '') return undefined;
  let target: URL;
  try {
    target = new URL(location.trim(), endpointUrl);
  } catch {
    // Not resolvable to a URL: Median would not name it.
    return undefined;
  }
  if (target.protocol !== 'https:') return undefined;
  const href = target.href;
  if (isLocalhostUrl(href) || isPrivateAddressUrl(href)) return undefined;
  return href;
}

/**
 * Judges the answer to a sync's signed GET in the order Median would: no
 * answer, redirect, 401, other non-2xx, too large, not JSON, then the
 * manifest rules (the first problem). Never throws.
 */
export function judgeSyncAnswer(outcome: SyncFetchOutcome, endpointUrl: string): SyncJudgement {
  try {
    if (typeof outcome !== 'object' || outcome === null || outcome.kind !== 'answer') {
      return { ok: false, message: SYNC_MESSAGES.didNotAnswer };
    }
    const status = outcome.status;
    if (typeof status !== 'number' || !Number.isInteger(status)) return { ok: false, message: SYNC_MESSAGES.didNotAnswer };
    if (status >= 300 && status < 400) {
      const named = nameableRedirect(headerValue(outcome.headers, 'location'), String(endpointUrl));
      return { ok: false, message: named === undefined ? SYNC_MESSAGES.redirected : SYNC_MESSAGES.redirectedTo(named) };
    }
    if (status === 401) return { ok: false, message: SYNC_MESSAGES.refusedSignature };
    if (status < 200 || status >= 300) return { ok: false, message: SYNC_MESSAGES.answeredStatus(status) };
    const body = outcome.body instanceof Uint8Array ? outcome.body : new Uint8Array(0);
    if (outcome.bodyTooLarge === true || bodyByteLength(body) > SYNC_LIMITS.maxManifestBytes) {
      return { ok: false, message: SYNC_MESSAGES.tooLarge };
    }
    const parsed = parseJsonBody(body);
    if (!parsed.ok) return { ok: false, message: SYNC_MESSAGES.notJson };
    const problems = checkManifest(parsed.value);
    const first = problems[0];
    if (first) return { ok: false, message: first.message };
    return { ok: true, manifest: parsed.value as Manifest };
  } catch {
    // A bug in judging must not break a sync: Median's own catch-all message.
    return { ok: false, message: SYNC_MESSAGES.couldNotSync };
  }
}
