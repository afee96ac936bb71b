import { describe, expect, it } from 'vitest';
import { isApprovedCall, judgeApprovedRun, parseFilter, recordMatches, verdictLabel, type Verdict } from '../../../src/median/index.js';
import { makeRecord } from '../../helpers/make-record.js';
import { rowOf } from '../../../src/events/inspector-api.js';
import { formatRow } from '../../../src/tui/format-row.js';

const threw: Verdict = { kind: 'threw', agentSees: 'boom', warnings: [], callError: 'boom' };

describe('approved calls that fail: what the thread shows', () => {
  it.each([
    [{ approvedBy: 'Dana' }, true],
    [{ approvedBy: 'The reviewer' }, true],
    [{ approvedBy: 'A teammate' }, true],
    [{ approvedBy: 'A test from the CLI' }, false],
    [{}, false],
    [undefined, false],
  ])('%j is approved: %s', (context, expected) => {
    expect(isApprovedCall(context)).toBe(expected);
  });

  it.each(['threw', 'invalid-input', 'not-answering'] as const)('%s becomes "<tool> did not run: <error>"', (kind) => {
    const judged = judgeApprovedRun('refundOrder', { approvedBy: 'Dana' }, { ...threw, kind });
    expect(judged).toMatchObject({ kind, didNotRun: 'refundOrder did not run: boom', agentSees: 'refundOrder did not run: boom' });
    expect(judged.warnings[0]?.code).toBe('approved_call_failed');
    expect(verdictLabel(judged)).toBe('did-not-run');
  });

  it.each(['answered', 'refused', 'unknown-outcome'] as const)('%s is left alone', (kind) => {
    const verdict: Verdict = { kind, agentSees: 'ok', warnings: [] };
    expect(judgeApprovedRun('refundOrder', { approvedBy: 'Dana' }, verdict)).toBe(verdict);
    expect(verdictLabel(verdict)).toBe(kind);
  });

  it('the filter finds it by its kind and by did-not-run', () => {
    const record = makeRecord({ verdict: judgeApprovedRun('refundOrder', { approvedBy: 'Dana' }, threw) });
    expect(recordMatches(record, parseFilter('verdict:did-not-run')!)).toBe(true);
    expect(recordMatches(record, parseFilter('verdict:threw')!)).toBe(true);
    expect(recordMatches(makeRecord({ verdict: threw }), parseFilter('verdict:did')!)).toBe(false);
  });

  it('the TUI row and the inspector row show did-not-run', () => {
    const record = makeRecord({ verdict: judgeApprovedRun('refundOrder', { approvedBy: 'Dana' }, threw) });
    expect(formatRow(record, 100)).toContain('did-not-run');
    expect(rowOf(record)).toMatchObject({ verdict: 'threw', didNotRun: 'refundOrder did not run: boom' });
  });
});
