import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCallStore } from '../../../src/recorder/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { makeRecord } from '../../helpers/make-record.js';
import { useDataDir } from './use-data-dir.js';

/**
 * A writer in another process that puts each line down in two halves, so a
 * reader often finds a half line at the end of the segment.
 */
const HALF_LINE_WRITER = `
import { appendFileSync, readFileSync } from 'node:fs';
const [source, target] = process.argv.slice(1);
const lines = readFileSync(source, 'utf8').split('\\n').filter(Boolean);
for (const line of lines) {
  const cut = Math.floor(line.length / 2);
  appendFileSync(target, line.slice(0, cut));
  await new Promise((resolve) => setTimeout(resolve, 1));
  appendFileSync(target, line.slice(cut) + '\\n');
}
`;

describe('a store read while another process writes', () => {
  it('sees only whole records, newest first, and all of them in the end', async () => {
    const dataDir = await useDataDir();
    await mkdir(join(dataDir, 'calls'), { recursive: true });
    const records = Array.from({ length: 150 }, (_, i) => makeRecord({ n: 50_000 + i }));
    const source = join(dataDir, 'source.jsonl');
    await writeFile(source, records.map((r) => JSON.stringify(r)).join('\n'));
    const child = spawn(process.execPath, ['--input-type=module', '-e', HALF_LINE_WRITER, source, join(dataDir, 'calls', 'calls-000001.jsonl')], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    useTeardown(child, (c) => c.exitCode === null && c.kill());
    const exited = once(child, 'exit');
    let done = false;
    void exited.then(() => {
      done = true;
    });

    const store = createCallStore(dataDir);
    const order = new Map(records.map((r, i) => [r.id, i]));
    let reads = 0;
    while (!done) {
      const seen = await store.list({ limit: 10 });
      const positions = seen.map((r) => order.get(r.id) ?? -1);
      // A contiguous run of whole records ending at the newest complete one.
      positions.forEach((position, i) => expect(position).toBe((positions[0] ?? 0) - i));
      reads += 1;
    }
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(reads).toBeGreaterThan(0);
    expect(await store.list()).toEqual([...records].reverse());
  });
});
