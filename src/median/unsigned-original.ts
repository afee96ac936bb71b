import { UserError } from '../shared/errors.js';
import type { CallRecord } from './call-record.js';

/** The flag that lets `replay` and `show --curl` re-sign a call whose original was not validly signed. */
export const ALLOW_UNSIGNED_ORIGINAL_FLAG = '--allow-unsigned-original';

/**
 * Why re-signing this record would launder it, or undefined when its
 * signature was valid. A call that was not validly signed (no signature, a
 * wrong or stale one, or no key to check it) may come from anyone who reaches
 * the tunnel URL, claiming any visitor (`verified: true`, someone else's
 * `externalId`); a replay or a copied curl signs it with your key, and the
 * route then trusts what it claims.
 */
export function unsignedOriginalReason(record: Pick<CallRecord, 'signature'>): string | undefined {
  if (record.signature === 'valid') return undefined;
  const how = record.signature === 'unchecked' ? 'was recorded without a key to check its signature' : `was not validly signed (${record.signature})`;
  return `The original call ${how}: anyone who reaches the tunnel URL can send such a call, claiming any visitor, and re-signing it with your key makes the route trust what it claims`;
}

/**
 * A replay or a copied curl re-signs the record with your key: one whose
 * original was not validly signed needs an explicit yes, or a forged call
 * (an unsigned `visitor: {verified: true}`) would come out signed.
 */
export function throwIfUnsignedOriginal(record: Pick<CallRecord, 'signature'>, isAllowed: boolean, what: string): void {
  const reason = unsignedOriginalReason(record);
  if (reason === undefined || isAllowed) return;
  throw new UserError('replay_unsigned_original', `${reason}. ${what} was not made.`, {
    hint: `If you know where the call came from, pass ${ALLOW_UNSIGNED_ORIGINAL_FLAG} (or confirm in the terminal UI or the inspector).`,
    details: { signature: record.signature },
  });
}
