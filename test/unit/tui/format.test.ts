import { describe, expect, it } from 'vitest';
import { formatCurl, formatDetail, formatRow } from '../../../src/tui/index.js';
import { keyName } from '../../../src/tui/key-names.js';
import { makeRecord } from '../../helpers/record-fixtures.js';

const replayed = makeRecord({
  tool: 'refund_order',
  replayOf: 'rec_original',
  signature: 'invalid_signature',
  durationMs: 8_500,
  response: { status: 500, headers: {}, body: '{"error":{"code":"boom","message":"it broke"}}' },
  verdict: {
    kind: 'not-answering',
    agentSees: 'The tool is not answering.',
    warnings: [{ code: 'near_timeout', message: 'The answer took 8.5 s, close to the 10 s limit.' }],
    callError: 'The endpoint answered 500. boom: it broke',
  },
  input: { orderNumber: 'A-1001', amount: 25 },
});

describe('formatRow', () => {
  it.each([30, 45, 60, 80, 100, 140, 250])('is exactly %i columns wide', (width) => {
    expect([...formatRow(replayed, width)]).toHaveLength(width);
  });

  it('shows time, tool, status, verdict, ms, signature and replay marks', () => {
    const row = formatRow(replayed, 120);
    expect(row).toMatch(/^\d\d:\d\d:\d\d refund_order /);
    expect(row).toContain(replayed.toolCallId);
    expect(row).toContain(' 500 ');
    expect(row).toContain('not-answering');
    expect(row).toContain('8500ms');
    expect(row).toMatch(/✗ ↻$/);
  });

  it.each<[string, Parameters<typeof makeRecord>[0], RegExp]>([
    ['a valid unreplayed call', {}, /✓  $/],
    ['an unchecked signature', { signature: 'unchecked' }, /·  $/],
    ['no answer', { response: null, durationMs: null, verdict: { kind: 'not-answering', agentSees: '', warnings: [] } }, /\s—\s{4}not-answering\s+—\s✓/],
    ['a manifest read', { kind: 'manifest', tool: null, toolCallId: '' }, /\(manifest\)/],
  ])('%s', (_name, overrides, pattern) => {
    expect(formatRow(makeRecord(overrides), 80)).toMatch(pattern);
  });
});

describe('formatDetail', () => {
  const text = formatDetail(replayed).join('\n');

  it.each([
    ['the tool and call id', `refund_order  ${replayed.toolCallId}`],
    ['status, verdict, duration and risk', 'HTTP 500  not-answering  8500ms  risk low'],
    ['the signature and its age', '✗ invalid_signature  (signed 40 ms before it arrived)'],
    ['the replay link', '↻ replay of rec_original'],
    ['warnings', '⚠ The answer took 8.5 s, close to the 10 s limit. [near_timeout]'],
    ['what the agent sees', '── What the agent sees \nThe tool is not answering.'],
    ["Median's log line", "Median's Logs: The endpoint answered 500. boom: it broke"],
    ['the input, pretty-printed', '── Input \n{\n  "orderNumber": "A-1001",\n  "amount": 25\n}'],
    ['the context', '"risk": "low"'],
    ['the response, pretty-printed', '── Response HTTP 500 \n{\n  "error": {\n    "code": "boom"'],
    ['the request line', 'POST /api/median'],
  ])('shows %s', (_name, expected) => {
    expect(text).toContain(expected);
  });

  it('wraps long lines at the given width', () => {
    const long = makeRecord({ verdict: { kind: 'answered', agentSees: 'x'.repeat(250), warnings: [] } });
    const lines = formatDetail(long, 100);
    expect(lines.filter((line) => /^x+$/.test(line)).map((line) => line.length)).toEqual([100, 100, 50]);
  });

  it('never shows an authorization header whole', () => {
    const connect = makeRecord({
      kind: 'connect',
      request: { method: 'GET', path: '/api/median', headers: { authorization: 'Bearer median_key_abcdefghijklmnopqrstuvwxyz0123456789' }, body: '' },
    });
    const detail = formatDetail(connect).join('\n');
    expect(detail).not.toContain('median_key_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(detail).toContain('authorization: Bearer …6789');
  });
});

describe('formatCurl', () => {
  it('rebuilds the request for the local proxy, quoting safely', () => {
    const record = makeRecord({ input: { note: "it's here" } });
    const curl = formatCurl(record, 'http://127.0.0.1:4141/');
    expect(curl.split(' \\\n  ')).toEqual([
      "curl -X POST 'http://127.0.0.1:4141/api/median'",
      "-H 'content-type: application/json'",
      `-H 'median-signature: ${String(record.request.headers['median-signature'])}'`,
      `--data-raw '${record.request.body.replace("'", `'\\''`)}'`,
    ]);
  });

  it('writes $MEDIAN_KEY instead of any bearer key', () => {
    const record = makeRecord({ request: { method: 'GET', path: '/api/median', headers: { authorization: 'Bearer median_key_secret', host: 'x' }, body: '' } });
    expect(formatCurl(record, null)).toBe(`curl -X GET 'http://127.0.0.1:4141/api/median' \\\n  -H "authorization: Bearer $MEDIAN_KEY"`);
  });
});

describe('keyName', () => {
  it.each<[string | undefined, Record<string, unknown> | undefined, string | undefined]>([
    ['r', { name: 'r' }, 'r'],
    ['R', { name: 'r', shift: true }, 'R'],
    ['?', undefined, '?'],
    ['/', { name: '/' }, '/'],
    [' ', { name: 'space' }, ' '],
    [undefined, { name: 'up' }, 'up'],
    [undefined, { name: 'pagedown' }, 'pagedown'],
    ['\r', { name: 'return' }, undefined],
    ['\r', { name: 'enter' }, 'enter'],
    ['\n', { name: 'linefeed' }, 'enter'],
    ['\x1b', { name: 'escape' }, 'escape'],
    ['\x7f', { name: 'backspace' }, 'backspace'],
    ['\x03', { name: 'c', ctrl: true }, 'C-c'],
    ['x', { name: 'x', meta: true }, undefined],
    [undefined, { name: 'undefined' }, undefined],
  ])('%j %j → %j', (ch, key, expected) => {
    expect(keyName(ch, key)).toBe(expected);
  });
});
