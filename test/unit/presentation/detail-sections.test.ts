import { describe, expect, it } from 'vitest';
import { MAX_DETAIL_LINES, callDetailOf, cutDetail } from '../../../src/presentation/index.js';
import { formatDetail } from '../../../src/tui/index.js';
import { makeRecord } from '../../helpers/make-record.js';

/** The one section list both screens render (the inspector's browser tests cover its cards). */
describe('callDetailOf', () => {
  it('lists the sections once, in the order both screens show them', () => {
    const detail = callDetailOf(makeRecord({ tool: 'refundOrder' }));
    expect(detail.sections.map((s) => s.title)).toEqual(['What the agent sees', 'Signature', 'Context', 'Input', 'Response HTTP 200', 'Request']);
    // The request's body is left out when its input and context are shown on their own.
    expect(detail.sections.find((s) => s.key === 'request')?.body).toBeUndefined();
  });

  it('is what the terminal UI draws, section for section', () => {
    const record = makeRecord({ tool: 'refundOrder' });
    const text = formatDetail(record).join('\n');
    const titles = callDetailOf(record).sections.map((s) => `── ${s.title} `);
    const at = titles.map((title) => text.indexOf(title));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it("names an approved call's approver and approval id, and nobody else's", () => {
    const approved = makeRecord({ toolCallId: 'apr_0123456789abcdef01234567', risk: 'high' });
    const body = JSON.parse(approved.request.body);
    body.context = { ...body.context, risk: 'high', approvedBy: 'A teammate' };
    const fields = callDetailOf({ ...approved, request: { ...approved.request, body: JSON.stringify(body) } }).sections.find((s) => s.key === 'context')!.fields;
    expect(Object.fromEntries(fields.map((f) => [f.name, f.value]))).toMatchObject({ approvedBy: 'A teammate', 'approval id': approved.toolCallId, risk: 'high' });
    const plain = callDetailOf(makeRecord()).sections.find((s) => s.key === 'context')!.fields.map((f) => f.key);
    expect(plain).not.toContain('approvedBy');
    expect(plain).not.toContain('approvalId');
  });

  it('marks the cuts where they bit: the 4,000 characters, the 100 KB answer, the recording limit', () => {
    const record = makeRecord({
      verdict: { kind: 'answered', agentSees: 'x'.repeat(4_000), warnings: [{ code: 'result_truncated', message: 'Cut.' }] },
    });
    const big = { ...record, response: { ...record.response!, size: 200_000, truncated: true } };
    const notes = callDetailOf(big).sections.flatMap((s) => s.notes.map((n) => n.kind));
    expect(notes).toEqual(expect.arrayContaining(['agent-cut', 'size-limit', 'recording-cut']));
    expect(callDetailOf(makeRecord()).sections.flatMap((s) => s.notes)).toEqual([]);
  });
});

describe('cutDetail', () => {
  it('keeps at most the limit, its last line saying how many more', () => {
    const lines = Array.from({ length: MAX_DETAIL_LINES + 10 }, (_, i) => String(i));
    const cut = cutDetail(lines, MAX_DETAIL_LINES, (hidden) => `… ${hidden} more`);
    expect(cut).toHaveLength(MAX_DETAIL_LINES);
    expect(cut.at(-1)).toBe('… 11 more');
    expect(cutDetail(['a'], MAX_DETAIL_LINES, () => 'x')).toEqual(['a']);
  });
});
