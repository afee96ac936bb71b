import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { assertMedianKey, deriveToolSecret } from '../median/index.js';
import { MedianDevError } from '../shared/index.js';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `median_key_` + 32 random alphanumerics. */
export function generateMedianKey(): string {
  const bytes = randomBytes(32);
  return `median_key_${Array.from(bytes, (b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('')}`;
}

interface HeldKey {
  key: string;
  digest: Buffer;
  secret: Buffer;
  revoked: boolean;
}

export interface KeyRing {
  /** The key the org was made with (it may have been revoked since). */
  readonly first: string;
  /** A new valid key for the same org ("Create the new key on Settings → API"). */
  create(): string;
  /** Revokes a key the org holds; idempotent. Throws `unknown_key` for any other. */
  revoke(key: string): void;
  /** The keys that still work, oldest first. */
  active(): string[];
  /** The org's key equal to `token` (constant time) when it is not revoked. */
  match(token: string): string | undefined;
  /**
   * The tool signing secret of a key the org holds, revoked or not: an
   * endpoint stays bound to the key that connected it, so its syncs and
   * calls keep signing with a revoked key's secret until it is reconnected.
   */
  secretFor(key: string): Buffer;
}

const digestOf = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * The ONE organization's Median keys. The emulator models one org that may
 * hold several keys at once, like Settings → API during a key rotation
 * (tool-errors.txt, "You rotated the Median key"): every non-revoked key
 * authenticates /v1 calls.
 */
export function createKeyRing(firstKey: string): KeyRing {
  const held: HeldKey[] = [];
  const find = (key: string): HeldKey | undefined => held.find((k) => k.key === key);

  function add(key: string): string {
    assertMedianKey(key);
    if (!find(key)) held.push({ key, digest: digestOf(key), secret: deriveToolSecret(key), revoked: false });
    return key;
  }
  add(firstKey);

  return {
    first: firstKey,
    create: () => {
      let key = generateMedianKey();
      while (find(key)) key = generateMedianKey(); // 62^32 keys: never loops in practice
      return add(key);
    },
    revoke(key) {
      const entry = find(key);
      if (!entry) {
        throw new MedianDevError('unknown_key', 'The emulator holds no such Median key, so there is nothing to revoke.', {
          hint: 'Pass a key from emulator.keys() or emulator.createKey().',
        });
      }
      entry.revoked = true;
    },
    active: () => held.filter((k) => !k.revoked).map((k) => k.key),
    match(token) {
      const digest = digestOf(token);
      // Compare against every key, so the time taken does not tell which matched.
      let found: HeldKey | undefined;
      for (const entry of held) if (timingSafeEqual(entry.digest, digest)) found = entry;
      return found && !found.revoked ? found.key : undefined;
    },
    secretFor(key) {
      const entry = find(key);
      if (!entry) throw new MedianDevError('unknown_key', 'The emulator holds no such Median key.');
      return entry.secret;
    },
  };
}
