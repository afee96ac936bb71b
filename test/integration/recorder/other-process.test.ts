import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { createCallStore } from '../../../src/recorder/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { makeRecord } from '../../helpers/make-record.js';
import { useDataDir } from './use-data-dir.js';

/**
 * A writer in another process that puts each line down in two halves, and
 * after each first half waits for the test's go (a line on stdin), so the
 * reader reads each time while the segment ends in a half line.
 */
const HALF_LINE_WRITER = `
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const [source, target] = process.argv.slice(1);
const lines = readFileSync(source, 'utf8').split('\\n').filter(Boolean);
const input = createInterface({ input: process.stdin });
const goes = input[Symbol.asyncIterator]();
for (const [i, line] of lines.entries()) {
  const cut = Math.floor(line.length / 2);
  appendFileSync(target, line.slice(0, cut));
  process.stdout.write('half ' + i + '\\n');
  await goes.next();
  appendFileSync(target, line.slice(cut) + '\\n');
}
input.close();
`;

describe('a store read while another process writes', () => {
  it('sees only whole records, newest first, and all of them in the end', async () => {
    const dataDir = await useDataDir();
    await mkdir(join(dataDir, 'calls'), { recursive: true });
    const records = Array.from({ length: 150 }, (_, i) => makeRecord({ n: 50_000 + i }));
    const source = join(dataDir, 'source.jsonl');
    await writeFile(source, records.map((r) => JSON.stringify(r)).join('\n'));
    const child = spawn(process.execPath, ['--input-type=module', '-e', HALF_LINE_WRITER, source, join(dataDir, 'calls', 'calls-000001.jsonl')], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    useTeardown(child, (c) => c.exitCode === null && c.kill());
    const exited = once(child, 'exit');

    const store = createCallStore(dataDir);
    const order = new Map(records.map((r, i) => [r.id, i]));
    let reads = 0;
    for await (const said of createInterface({ input: child.stdout! })) {
      const half = Number(/^half (\d+)$/.exec(said)?.[1]);
      // The segment ends in half of record `half`: the reader sees the whole ones before it, newest first, and not that one.
      const seen = await store.list({ limit: 10 });
      expect(seen.map((r) => order.get(r.id))).toEqual(Array.from({ length: Math.min(10, half) }, (_, k) => half - 1 - k));
      reads += 1;
      child.stdin!.write('go\n');
    }
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(reads).toBe(records.length);
    expect(await store.list()).toEqual([...records].reverse());
  });
});
