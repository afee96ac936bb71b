import { MedianDevError } from '../shared/errors.js';
import { nodeCrypto } from '../shared/lazy-builtins.js';

/** SPEC §1.1: `median_key_` then at least 32 characters of [A-Za-z0-9]. */
const KEY_PREFIX = 'median_key_';
const KEY_PATTERN = /^median_key_[A-Za-z0-9]{32,}$/;
const TOOL_SECRET_PATTERN = /^[0-9a-fA-F]{64}$/;

export const KEY_MESSAGES = Object.freeze({
  wrongPrefix: 'Median: MEDIAN_KEY must start with median_key_. Copy the Median key from Settings under API.',
  malformed: 'Median: MEDIAN_KEY is malformed. Copy it again from Settings under API.',
});

export type KeyProblem = 'wrong_prefix' | 'malformed';

/** Why a key is unusable, or undefined when it has the right shape. */
export function checkMedianKey(key: string): KeyProblem | undefined {
  if (!key.startsWith(KEY_PREFIX)) return 'wrong_prefix';
  if (!KEY_PATTERN.test(key)) return 'malformed';
  return undefined;
}

/** Throws `invalid_median_key` with the docs' message when the key is off. */
export function assertMedianKey(key: string): void {
  const problem = checkMedianKey(key);
  if (problem === undefined) return;
  throw new MedianDevError(
    'invalid_median_key',
    problem === 'wrong_prefix' ? KEY_MESSAGES.wrongPrefix : KEY_MESSAGES.malformed,
    { hint: 'Copy the Median key (median_key_…) from Settings → API into MEDIAN_KEY.' },
  );
}

/**
 * OUR ASSUMPTION (SPEC §1.1): the docs only say the tool signing secret is
 * "derived from MEDIAN_KEY". We fix it here, and only here, as
 * HMAC-SHA256(key = UTF-8 bytes of MEDIAN_KEY, message = "median/tool-signing/v1"),
 * the 32 raw bytes.
 */
export function deriveToolSecret(medianKey: string): Buffer {
  return nodeCrypto().createHmac('sha256', Buffer.from(medianKey, 'utf8')).update('median/tool-signing/v1').digest();
}

/**
 * The secret that signs and verifies tool requests: `MEDIAN_TOOL_SECRET`
 * (64 hex characters) when given, else derived from the key.
 */
export function resolveToolSecret(options: { medianKey?: string | undefined; toolSecret?: string | undefined }): Buffer {
  if (options.toolSecret !== undefined && options.toolSecret !== '') {
    if (!TOOL_SECRET_PATTERN.test(options.toolSecret)) {
      throw new MedianDevError('invalid_tool_secret', 'MEDIAN_TOOL_SECRET must be 64 hexadecimal characters.', {
        hint: 'Unset MEDIAN_TOOL_SECRET to derive the secret from MEDIAN_KEY, or set it to the 64 hex characters you were given.',
      });
    }
    return Buffer.from(options.toolSecret, 'hex');
  }
  if (options.medianKey === undefined || options.medianKey === '') {
    throw new MedianDevError('missing_secret', 'No MEDIAN_KEY is set, so there is nothing to sign or verify with.', {
      hint: 'Set MEDIAN_KEY in the environment or in the env file (.env.local).',
    });
  }
  assertMedianKey(options.medianKey);
  return deriveToolSecret(options.medianKey);
}

/** `…abcd`: the last four characters, for showing which key is in use. */
export function keyFingerprint(medianKey: string): string {
  return `…${medianKey.slice(-4)}`;
}

/**
 * Every secret median-dev knows and must mask wherever it prints or stores
 * text: the key, `MEDIAN_TOOL_SECRET`, and the signing secret derived from the
 * key (as 64 hex characters; the masker adds its other spellings).
 */
export function secretsToMask(options: { medianKey?: string | undefined; toolSecret?: string | undefined; ngrokAuthtoken?: string | undefined }): string[] {
  const secrets: string[] = [];
  if (options.medianKey) secrets.push(options.medianKey, deriveToolSecret(options.medianKey).toString('hex'));
  if (options.toolSecret) secrets.push(options.toolSecret);
  // Not Median's, but as secret: an ngrok authtoken opens tunnels on the user's account.
  if (options.ngrokAuthtoken) secrets.push(options.ngrokAuthtoken);
  return secrets;
}
