import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createCallStore } from '../../../src/recorder/index.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { makeRecord } from '../../helpers/make-record.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/**
 * The built recorder in a process of its own, writing as the daemon does
 * (default durability: each batch written to the OS on the main thread in
 * the turn it was appended), the records read from a file; it prints each
 * append's outcome as a JSON line once the append settled.
 */
const RECORDER_URL = pathToFileURL(join(import.meta.dirname, '../../../dist/src/recorder/index.js')).href;
const WRITER = `
import { readFileSync } from 'node:fs';
const [recorderUrl, dataDir, source, perTurn, hold] = process.argv.slice(1);
const { openRecorder } = await import(recorderUrl);
const records = readFileSync(source, 'utf8').split('\\n').filter(Boolean).map((line) => JSON.parse(line));
const recorder = await openRecorder({ dataDir });
for (let i = 0; i < records.length; i += Number(perTurn)) {
  await new Promise((resolve) => setImmediate(resolve));
  await Promise.all(records.slice(i, i + Number(perTurn)).map((record) => recorder.append(record).then(
    () => process.stdout.write(JSON.stringify({ id: record.id, ok: true }) + '\\n'),
    (error) => process.stdout.write(JSON.stringify({ id: record.id, code: error.code, reason: error.details?.reason }) + '\\n'),
  )));
}
if (hold === 'hold') setInterval(() => undefined, 1_000); // waits for the kill
else await recorder.close();
`;

interface Outcome {
  id: string;
  ok?: true;
  code?: string;
  reason?: string;
}

async function startWriter(records: ReturnType<typeof makeRecord>[], options: { perTurn: number; hold?: boolean; fileSizeLimit?: number }) {
  const dir = await useTempDir('median-dev-record-writes-');
  const dataDir = join(dir, '.median-dev');
  const source = join(dir, 'records.jsonl');
  await writeFile(source, records.map((r) => JSON.stringify(r)).join('\n'));
  const args = ['--input-type=module', '-e', WRITER, RECORDER_URL, dataDir, source, String(options.perTurn), options.hold ? 'hold' : 'close'];
  // prlimit: every file the writer grows past the limit fails with EFBIG, as a full disk fails with ENOSPC.
  const child = options.fileSizeLimit === undefined ? spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn('prlimit', [`--fsize=${options.fileSizeLimit}`, '--', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  useTeardown(child, (c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL'));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, dataDir, exited, outcomes: createInterface({ input: child.stdout! }) };
}

describe.runIf(process.platform === 'linux')('the recorder writing in the turn of the append, in a process of its own', () => {
  it('a kill -9 mid-load loses no record whose append had resolved', async () => {
    const records = Array.from({ length: 20_000 }, () => makeRecord());
    const writer = await startWriter(records, { perTurn: 4, hold: true });
    const resolved: string[] = [];
    for await (const line of writer.outcomes) {
      const outcome = JSON.parse(line) as Outcome;
      expect(outcome.ok).toBe(true);
      resolved.push(outcome.id);
      if (resolved.length === 2_000) writer.child.kill('SIGKILL');
    }
    expect((await writer.exited)[1]).toBe('SIGKILL');
    expect(resolved.length).toBeGreaterThanOrEqual(2_000);
    const stored = new Set((await createCallStore(writer.dataDir).list({ limit: 100_000 })).map((r) => r.id));
    expect(resolved.filter((id) => !stored.has(id))).toEqual([]);
  });

  it('a write the OS refuses rejects with record_write_failed, and recording goes on in a new segment', async () => {
    const records = Array.from({ length: 24 }, () => makeRecord());
    const line = Buffer.byteLength(`${JSON.stringify(records[0])}\n`);
    // Three lines and half of the fourth fit a file: each fourth write is torn by EFBIG.
    const writer = await startWriter(records, { perTurn: 1, fileSizeLimit: Math.floor(3.5 * line) });
    const outcomes: Outcome[] = [];
    for await (const said of writer.outcomes) outcomes.push(JSON.parse(said) as Outcome);
    expect(await writer.exited).toEqual([0, null]);
    expect(outcomes.map((o) => (o.ok ? 'ok' : `${o.code} ${o.reason}`))).toEqual(
      records.map((_, i) => (i % 4 === 3 ? 'record_write_failed EFBIG' : 'ok')),
    );
    const stored = outcomes.filter((o) => o.ok).map((o) => o.id);
    const store = createCallStore(writer.dataDir);
    // Only the written records, none glued onto a torn line; each found by id.
    expect((await store.list({ limit: 100 })).map((r) => r.id)).toEqual(stored.reverse());
    for (const id of stored) expect((await store.get(id))?.id).toBe(id);
  });
});
