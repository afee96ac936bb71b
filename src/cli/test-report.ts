import type { SavedCallResult } from '../saved-calls/run-saved-calls.js';
import { safeLine, safeText } from '../shared/output-sanitiser.js';
import type { Style } from './terminal-style.js';
import { styleVerdict } from './terminal-style.js';

/** One line per saved call as it finishes; a failing one gets its problems and the answer's diff below. */
export function formatResultLines(result: SavedCallResult, style: Style): string[] {
  const ms = `${Math.round(result.durationMs)} ms`;
  const name = safeLine(result.name);
  const noise = result.noise && result.noise.length > 0 ? style.dim(`  (noise found, ignored from now on: ${result.noise.map(safeLine).join(', ')})`) : '';
  if (result.outcome === 'passed') return [`  ${style.green('✓')} ${name}  ${style.dim(safeLine(result.tool))}  ${styleVerdict(style, result.actual.verdict)}  ${style.dim(ms)}${noise}`];
  const mark = result.outcome === 'updated' ? style.yellow('↻') : style.red('✗');
  const lines = [`  ${mark} ${name}  ${style.dim(safeLine(result.tool))}  ${styleVerdict(style, result.actual.verdict)}  ${style.dim(ms)}${result.outcome === 'updated' ? style.yellow('  updated') : ''}${noise}`];
  for (const problem of result.problems) lines.push(`      ${style.dim(`${problem.code}:`)} ${safeText(problem.message)}`);
  if (result.diff && result.outcome === 'failed') {
    for (const line of safeText(result.diff).split('\n')) {
      lines.push(`      ${line.startsWith('-') ? style.red(line) : line.startsWith('+') ? style.green(line) : style.dim(line)}`);
    }
  }
  return lines;
}

export interface RunSummary {
  passed: number;
  failed: number;
  updated: number;
  notRun: number;
  durationMs: number;
}

export function summarize(results: readonly SavedCallResult[], total: number, durationMs: number): RunSummary {
  const count = (outcome: SavedCallResult['outcome']) => results.filter((r) => r.outcome === outcome).length;
  return { passed: count('passed'), failed: count('failed'), updated: count('updated'), notRun: total - results.length, durationMs };
}

export function formatSummary(summary: RunSummary, style: Style): string {
  const parts = [style.green(`${summary.passed} passed`)];
  if (summary.failed > 0) parts.push(style.red(`${summary.failed} failed`));
  if (summary.updated > 0) parts.push(style.yellow(`${summary.updated} updated`));
  if (summary.notRun > 0) parts.push(style.dim(`${summary.notRun} not run (--bail)`));
  return `${parts.join(', ')}  ${style.dim(`(${(summary.durationMs / 1000).toFixed(2)} s)`)}`;
}
