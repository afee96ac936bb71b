import { UserError } from '../shared/errors.js';
import type { CallRecord } from '../median/call-record.js';
import type { Found } from './indexed-queries.js';

/** What the store's lookups by id answer when a prefix names several calls (`call_ambiguous`'s `details.candidates`). */
export interface CallCandidate {
  id: string;
  toolCallId: string;
  tool: string | null;
  receivedAt: string;
}

const candidateOf = (record: CallRecord): CallCandidate => ({ id: record.id, toolCallId: record.toolCallId, tool: record.tool, receivedAt: record.receivedAt });

/** The record a lookup found, or the error saying none or several. */
export function pickedOf(wanted: string, found: Found): CallRecord {
  if ('record' in found) return found.record;
  if (found.total === 0) throw notFound(wanted);
  const candidates = found.candidates.map(candidateOf);
  throw new UserError(
    'call_ambiguous',
    `"${wanted}" matches ${found.total} recorded calls: ${candidates
      .slice(0, 5)
      .map((c) => c.toolCallId || c.id)
      .join(', ')}${found.total > 5 ? ', …' : ''}.`,
    { hint: 'Type more of the toolCallId, or use the record id (rec_…).', details: { candidates, total: found.total } },
  );
}

export function notFound(id: string): UserError {
  return new UserError('call_not_found', `No recorded call has the toolCallId or record id "${id}".`, {
    hint: 'Run `median-dev calls` to see the recorded calls and their ids.',
  });
}
