import type { SavedCallResult } from './run-saved-calls.js';

export interface JunitOptions {
  /** The `<testsuite name>`: the saved calls' folder. */
  suiteName: string;
  /** ISO time the run started. */
  startedAt: string;
  durationMs: number;
  /** Saved calls the run did not reach (`--bail`): reported as skipped. */
  notRun?: ReadonlyArray<{ file: string; name: string; tool: string }>;
}

/** Characters XML 1.0 cannot hold at all (controls but tab, newline, return; lone surrogates): dropped. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlEscape(text: string): string {
  return text.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

function testcase(result: SavedCallResult, suite: string): string {
  const head = `    <testcase name="${xmlEscape(result.name)}" classname="${xmlEscape(`${suite}.${result.tool}`)}" file="${xmlEscape(result.file)}" time="${seconds(result.durationMs)}"`;
  if (result.outcome !== 'failed') return `${head}/>`;
  const first = result.problems[0];
  const detail = [...result.problems.map((p) => `${p.code}: ${p.message}`), ...(result.diff ? ['', result.diff] : [])].join('\n');
  return [
    `${head}>`,
    `      <failure message="${xmlEscape(first?.message ?? 'failed')}" type="${xmlEscape(first?.code ?? 'failed')}">${xmlEscape(detail)}</failure>`,
    '    </testcase>',
  ].join('\n');
}

/**
 * The run as JUnit XML, the shape CI systems read (Jenkins, GitLab, GitHub
 * test reporters, Azure): `<testsuites>` with one `<testsuite>` holding one
 * `<testcase>` per saved call, a `<failure message type>` for a failing one,
 * `<skipped/>` for those `--bail` did not reach, counts and times in seconds.
 */
export function junitReport(results: readonly SavedCallResult[], options: JunitOptions): string {
  const suite = options.suiteName;
  const failures = results.filter((r) => r.outcome === 'failed').length;
  const notRun = options.notRun ?? [];
  const tests = results.length + notRun.length;
  const time = seconds(options.durationMs);
  const cases = [
    ...results.map((r) => testcase(r, suite)),
    ...notRun.map((n) => `    <testcase name="${xmlEscape(n.name)}" classname="${xmlEscape(`${suite}.${n.tool}`)}" file="${xmlEscape(n.file)}" time="0.000">\n      <skipped message="not run: --bail stopped at the first failure"/>\n    </testcase>`),
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="median-dev test" tests="${tests}" failures="${failures}" errors="0" skipped="${notRun.length}" time="${time}">`,
    `  <testsuite name="${xmlEscape(suite)}" tests="${tests}" failures="${failures}" errors="0" skipped="${notRun.length}" time="${time}" timestamp="${xmlEscape(options.startedAt)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
