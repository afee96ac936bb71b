import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { parseFilter, recordMatches } from '../../../src/tui/index.js';
import { makeRecord } from '../../helpers/record-fixtures.js';

const refused = makeRecord({
  tool: 'refund_order',
  toolCallId: 'call_refused',
  risk: 'high',
  verdict: { kind: 'refused', agentSees: 'Refunds over 100 EUR need a person.', warnings: [{ code: 'near_timeout', message: 'slow' }] },
});
const crashed = makeRecord({
  tool: 'lookup_order',
  response: { status: 503, headers: {}, body: '{"error":{"code":"down","message":"db offline"}}' },
  verdict: { kind: 'not-answering', agentSees: '', warnings: [] },
  signature: 'stale_timestamp',
  replayOf: 'rec_original',
});
const unanswered = makeRecord({ tool: 'slow_tool', response: null, verdict: { kind: 'not-answering', agentSees: '', warnings: [] } });
const manifest = makeRecord({ tool: null, toolCallId: '', kind: 'manifest', risk: null });

describe('parseFilter', () => {
  it.each<[string, unknown]>([
    ['', null],
    ['   ', null],
    ['Refund', { text: 'Refund', terms: [{ field: 'text', value: 'refund', isNegated: false }] }],
    ['tool:refund -verdict:ans', { text: 'tool:refund -verdict:ans', terms: [{ field: 'tool', value: 'refund', isNegated: false }, { field: 'verdict', value: 'ans', isNegated: true }] }],
    ['signature:invalid', { text: 'signature:invalid', terms: [{ field: 'sig', value: 'invalid', isNegated: false }] }],
    ['unknown:x', { text: 'unknown:x', terms: [{ field: 'text', value: 'unknown:x', isNegated: false }] }],
    ['tool:', { text: 'tool:', terms: [{ field: 'text', value: 'tool:', isNegated: false }] }],
  ])('%j', (text, expected) => {
    expect(parseFilter(text)).toEqual(expected);
  });
});

describe('recordMatches', () => {
  const records: Record<string, CallRecord> = { refused, crashed, unanswered, manifest };
  it.each<[string, string[]]>([
    ['refund', ['refused']],
    ['REFUND', ['refused']],
    ['tool:order', ['refused', 'crashed']],
    ['verdict:refused', ['refused']],
    ['verdict:not', ['crashed', 'unanswered']],
    ['refused', ['refused']],
    ['status:503', ['crashed']],
    ['status:5xx', ['crashed']],
    ['status:2xx', ['refused', 'manifest']],
    ['status:none', ['unanswered']],
    ['sig:stale', ['crashed']],
    ['risk:high', ['refused']],
    ['is:replay', ['crashed']],
    ['is:warning', ['refused']],
    ['is:error', ['refused', 'crashed', 'unanswered']],
    ['is:manifest', ['manifest']],
    ['db offline', ['crashed']],
    // Words that cannot be hex: a record's random id may hold "db".
    ['offline shipped', []],
    ['offline', ['crashed']],
    ['person', ['refused']],
    ['call_refused', ['refused']],
    ['-tool:order is:error', ['unanswered']],
  ])('%s', (text, expected) => {
    const filter = parseFilter(text);
    if (!filter) throw new Error('expected a filter');
    expect(Object.entries(records).filter(([, record]) => recordMatches(record, filter)).map(([name]) => name)).toEqual(expected);
  });
});
