import { nodeCrypto } from '../shared/lazy-builtins.js';

/** SPEC §1.1: signatures are valid within five minutes either way. */
export const SIGNATURE_TOLERANCE_MS = 300_000;
export const SIGNATURE_HEADER = 'median-signature';

export type SignatureOutcome =
  | 'valid'
  | 'missing_signature'
  | 'malformed_signature'
  | 'stale_timestamp'
  | 'invalid_signature';

/** What a record says about a request's signature (`unchecked`: no key known). */
export type SignatureStatus = SignatureOutcome | 'unchecked';

export interface ParsedSignature {
  timestamp: number;
  v1: string;
}

const TIMESTAMP_PATTERN = /^\d{1,15}$/;
const V1_PATTERN = /^[0-9a-f]{64}$/i;

/** `t=<ms>,v1=<hex>`, or undefined when the header has any other shape. */
export function parseSignatureHeader(header: string): ParsedSignature | undefined {
  const parts = header.split(',');
  // Stryker disable next-line ConditionalExpression: a shortcut only; with fewer parts t or v1 stays unset, with more a name repeats or is unknown, and the loop refuses both.
  if (parts.length !== 2) return undefined;
  let t: string | undefined;
  let v1: string | undefined;
  for (const part of parts) {
    const eq = part.indexOf('=');
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut only; without "=" (or before the name) the name is neither "t" nor "v1", or the value then holds the name and fails its pattern.
    if (eq <= 0) return undefined;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    // Stryker disable next-line ConditionalExpression: with exactly two parts a repeated t leaves v1 unset, so the header is refused either way.
    if (name === 't' && t === undefined) t = value;
    // Stryker disable next-line ConditionalExpression: likewise, a repeated v1 leaves t unset.
    else if (name === 'v1' && v1 === undefined) v1 = value;
    else return undefined;
  }
  // Stryker disable next-line ConditionalExpression,LogicalOperator: narrows the types only; a missing value is tested as "undefined", which neither pattern matches.
  if (t === undefined || v1 === undefined) return undefined;
  if (!TIMESTAMP_PATTERN.test(t) || !V1_PATTERN.test(v1)) return undefined;
  return { timestamp: Number(t), v1: v1.toLowerCase() };
}

function bodyBytes(body: string | Uint8Array): Buffer {
  // Stryker disable next-line ConditionalExpression,StringLiteral: Buffer.from copies a Uint8Array view's own bytes whatever encoding is named, and reads an empty name as utf8.
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** hex(HMAC-SHA256(secret, "<t>.<raw body>")). */
export function computeSignature(secret: Uint8Array, timestamp: number, body: string | Uint8Array): string {
  return nodeCrypto().createHmac('sha256', secret).update(`${timestamp}.`).update(bodyBytes(body)).digest('hex');
}

/** The `median-signature` header value for a body signed at `timestamp`. */
export function signBody(secret: Uint8Array, body: string | Uint8Array, timestamp: number = Date.now()): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, body)}`;
}

/**
 * Checks a `median-signature` header against the raw body. The outcomes come
 * in the SPEC's order: missing, malformed, stale, invalid, else valid.
 */
export function verifySignature(
  header: string | readonly string[] | undefined,
  body: string | Uint8Array,
  secret: Uint8Array,
  now: number = Date.now(),
): SignatureOutcome {
  const verifier = createSignatureVerifier(header, secret, now);
  verifier.update(bodyBytes(body));
  return verifier.finish();
}

/** `verifySignature` over a body that arrives in pieces (one larger than what is kept of it). */
export interface SignatureVerifier {
  update(chunk: Uint8Array): void;
  finish(): SignatureOutcome;
}

/**
 * Checks a signature over a streamed body: the HMAC is updated chunk by
 * chunk, so a body of any size gets its real outcome without being held in
 * memory. The header decides missing, malformed and stale before any byte.
 */
export function createSignatureVerifier(header: string | readonly string[] | undefined, secret: Uint8Array, now: number = Date.now()): SignatureVerifier {
  const early = headerOutcome(header, now);
  if (typeof early === 'string') return { update: () => undefined, finish: () => early };
  const hmac = nodeCrypto().createHmac('sha256', secret).update(`${early.timestamp}.`);
  return {
    update: (chunk) => void hmac.update(chunk),
    finish() {
      const expected = hmac.digest();
      const given = Buffer.from(early.v1, 'hex');
      // Stryker disable next-line ConditionalExpression: V1_PATTERN admits exactly 64 hex digits, so both are always 32 bytes; the length check guards timingSafeEqual should that pattern ever change.
      return given.length === expected.length && nodeCrypto().timingSafeEqual(given, expected) ? 'valid' : 'invalid_signature';
    },
  };
}

/** The outcome the header alone decides (missing, malformed, stale), or the parsed header to check the body against. */
function headerOutcome(header: string | readonly string[] | undefined, now: number): SignatureOutcome | ParsedSignature {
  if (header === undefined || (typeof header === 'string' && header.trim() === '')) return 'missing_signature';
  if (typeof header !== 'string') return header.length === 0 ? 'missing_signature' : 'malformed_signature';
  const parsed = parseSignatureHeader(header);
  if (!parsed) return 'malformed_signature';
  if (Math.abs(now - parsed.timestamp) > SIGNATURE_TOLERANCE_MS) return 'stale_timestamp';
  return parsed;
}

/** The age of a signature in ms (positive: signed in the past), if parseable. */
export function signatureAge(header: string | undefined, now: number = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const parsed = parseSignatureHeader(header);
  return parsed ? now - parsed.timestamp : undefined;
}
