import { describe, expect, it } from 'vitest';
import { junitReport, type SavedCallResult } from '../../../src/saved-calls/index.js';
import { checkJunitShape } from '../../helpers/junit-shape.js';

function result(over: Partial<SavedCallResult> = {}): SavedCallResult {
  return {
    file: 'median-calls/orderStatus-1.json',
    name: 'orderStatus-1',
    tool: 'orderStatus',
    outcome: 'passed',
    problems: [],
    diff: null,
    toolCallId: 'call_1',
    expected: { status: 200, verdict: 'answered' },
    actual: { status: 200, verdict: 'answered', agentSees: '{}' },
    durationMs: 12.5,
    noise: null,
    rewritten: null,
    ...over,
  };
}

describe('junitReport', () => {
  it('is JUnit XML a CI reader takes: counts, a failure with its message, skipped calls', () => {
    const failed = result({
      name: 'chargeCard-<&"\u0007>',
      tool: 'chargeCard',
      outcome: 'failed',
      problems: [{ code: 'verdict', message: 'was threw, now answered: {"ok":true} & more' }],
      diff: '--- saved\n+++ now\n-   "x": 1\n+   "x": 2',
    });
    const xml = junitReport([result(), failed], {
      suiteName: 'median-calls',
      startedAt: '2026-12-01T09:00:00.000Z',
      durationMs: 1234,
      notRun: [{ file: 'median-calls/later.json', name: 'later', tool: 'refundOrder' }],
    });
    const { problems, cases, counts } = checkJunitShape(xml);
    expect(problems).toEqual([]);
    expect(counts).toEqual({ tests: 3, failures: 1 });
    expect(cases.map((c) => [c.name, c.classname, c.failure?.type ?? null, c.isSkipped])).toEqual([
      ['orderStatus-1', 'median-calls.orderStatus', null, false],
      ['chargeCard-<&">', 'median-calls.chargeCard', 'verdict', false],
      ['later', 'median-calls.refundOrder', null, true],
    ]);
    expect(cases[1]!.failure!.message).toBe('was threw, now answered: {"ok":true} & more');
    expect(cases[1]!.failure!.text).toContain('+   "x": 2');
    expect(xml).toContain('time="1.234"');
  });

  it('the shape check itself catches broken XML and a missing message', () => {
    expect(checkJunitShape('<?xml version="1.0"?><testsuites tests="1" failures="0"><testsuite name="a" tests="1" failures="0" time="0"><testcase name="x" classname="y" time="0"></testsuite></testsuites>').problems).not.toEqual([]);
    expect(
      checkJunitShape('<?xml version="1.0"?><testsuites tests="1" failures="1"><testsuite name="a" tests="1" failures="1" time="0"><testcase name="x" classname="y" time="0"><failure/></testcase></testsuite></testsuites>').problems,
    ).toEqual(['<failure> has no message']);
  });
});
