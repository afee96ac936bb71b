import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binNodeArgs } from '../../../bench/bin-node-args.js';
import { BUNDLED_CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';

// A daemon's heap under steady traffic: ~10 MB that stays (like the event hub's last calls) and many short-lived
// objects that outlive a scavenge or two (like a call's request, record and event). It reports the largest old space
// it saw and the old space in use after a full collection at the end (the live size).
const CHURN = `
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
const live = [];
const record = (n) => ({ id: 'rec_' + n, fields: new Array(200).fill(n) });
for (let i = 0; i < 6000; i += 1) live.push(record(i));
const held = [];
let largest = 0;
const started = Date.now();
for (let n = 0; Date.now() - started < 3000; n += 1) {
  held.push({ n, payload: JSON.parse(JSON.stringify({ a: 'y'.repeat(800), n, list: [1, 2, 3, n] })) });
  if (held.length > 300) held.shift();
  live[n % live.length] = record(n);
  if (n % 1000 === 0) largest = Math.max(largest, oldSpace().space_size);
}
v8.setFlagsFromString('--expose-gc');
runInNewContext('gc')();
process.stdout.write(JSON.stringify({ records: live.length + held.length, largestMiB: largest / 2 ** 20, liveMiB: oldSpace().space_used_size / 2 ** 20 }));
`;

describe("the bin's node options bound the old generation's growth", () => {
  // V8's default lets the old space grow to up to 4 times its live size between full collections on a machine
  // with a large heap limit (58 MiB for 13 live here); the daemon's RSS under load followed it (the soak's
  // 100+ MiB along the way). The bin's options keep it within V8's minimum step (8 MB) of the live size.
  it("old space stays within the live size + V8's 8 MB step (+ new space, fragmentation) under churn", async () => {
    const dir = await useTempDir('median-dev-heap-growth-');
    const script = join(dir, 'churn.mjs');
    await writeFile(script, CHURN);
    const child = spawn(process.execPath, [...binNodeArgs(BUNDLED_CLI_PATH), script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const { largestMiB, liveMiB } = JSON.parse(out) as { largestMiB: number; liveMiB: number };
    expect(liveMiB).toBeGreaterThan(8);
    expect(largestMiB - liveMiB).toBeLessThan(20);
  }, 20_000);
});
