import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TABLE = readFileSync(`${ROOT}docs/fidelity.md`, 'utf8');

describe('docs/fidelity.md keeps its count honest', () => {
  const rows = [...TABLE.matchAll(/^\| (\d+) \| (.+?) \| (.+?) \| \[[^\]]+\]\(\.\.\/([^)]+)\) \|$/gm)].map((m) => ({ n: Number(m[1]), row: m[2]!, how: m[3]!, test: m[4]! }));

  it('numbers every row once, and its summary counts them', () => {
    expect(rows.map((r) => r.n)).toEqual(rows.map((_, i) => i + 1));
    expect(TABLE).toContain(`**${rows.length} of ${rows.length}**`);
    expect(rows.length).toBe(127);
  });

  it('says for each row how it is covered, and names a test file that exists', () => {
    for (const { row, how, test } of rows) {
      expect(how, row).toMatch(/emulated|diagnosed/);
      expect(existsSync(`${ROOT}${test}`), `${row}: ${test}`).toBe(true);
      expect(test, row).toMatch(/\.(test|spec)\.ts$/);
    }
  });
});
