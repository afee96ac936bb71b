import type { DiffLine } from '../median/response-diff.js';

/** One row of a side-by-side diff: the original's line on the left, the replay's on the right. */
export interface SideBySideRow {
  left: string | null;
  right: string | null;
  kind: 'same' | 'changed' | 'removed' | 'added';
}

/** Pairs each run of removed lines with the run of added lines after it, row by row. */
export function sideBySide(lines: readonly DiffLine[]): SideBySideRow[] {
  const rows: SideBySideRow[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.op === ' ') {
      rows.push({ left: line.text, right: line.text, kind: 'same' });
      i++;
      continue;
    }
    const removed: string[] = [];
    const added: string[] = [];
    while (i < lines.length && lines[i]!.op === '-') removed.push(lines[i++]!.text);
    while (i < lines.length && lines[i]!.op === '+') added.push(lines[i++]!.text);
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const left = removed[k] ?? null;
      const right = added[k] ?? null;
      rows.push({ left, right, kind: left !== null && right !== null ? 'changed' : left !== null ? 'removed' : 'added' });
    }
  }
  return rows;
}
