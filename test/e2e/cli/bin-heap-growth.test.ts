import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binNodeArgs } from '../../../bench/bin-node-args.js';
import { median } from '../../../bench/percentiles.js';
import { BUNDLED_CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';

// A daemon's heap under steady traffic: ~10 MB that stays (like the event hub's last calls) and many short-lived
// objects that outlive a scavenge or two (like a call's request, record and event). A fixed amount of work (not a
// time), so the number of full collections does not depend on the machine's load. Node's GCProfiler reports the old
// space before and after each full collection (mark-compact): how far it grew above the live size before V8 collected.
const CHURN = `
import v8 from 'node:v8';
const profiler = new v8.GCProfiler();
profiler.start();
const live = [];
const record = (n) => ({ id: 'rec_' + n, fields: new Array(200).fill(n) });
for (let i = 0; i < 6000; i += 1) live.push(record(i));
const held = [];
for (let n = 0; n < 150000; n += 1) {
  held.push({ n, payload: JSON.parse(JSON.stringify({ a: 'y'.repeat(800), n, list: [1, 2, 3, n] })) });
  if (held.length > 300) held.shift();
  live[n % live.length] = record(n);
}
const oldSpace = (side) => side.heapSpaceStatistics.find((s) => s.spaceName === 'old_space').spaceUsedSize / 2 ** 20;
const fullCollections = profiler.stop().statistics.filter((s) => s.gcType === 'MarkSweepCompact');
process.stdout.write(JSON.stringify(fullCollections.map((s) => ({ beforeMiB: oldSpace(s.beforeGC), afterMiB: oldSpace(s.afterGC) }))));
`;

describe("the bin's node options bound the old generation's growth", () => {
  // V8's default lets the old space grow to up to 4 times its live size between full collections on a machine
  // with a large heap limit (~60 MiB above 13 live here); the daemon's RSS under load followed it (the soak's
  // 100+ MiB along the way). The bin's options keep it within V8's minimum step (8 MB) of the live size (~10.5 MiB
  // above it here, with what the scavenges promote while marking runs). The median over the run's full collections:
  // the largest size seen at any moment depended on when the one GC helper thread got a core (20.2 and 20.7 MiB over
  // in two loaded runs of the whole suite, against 13-16 otherwise); each collection's growth does not.
  it('old space grows by about the 8 MB step above its live size between full collections, under churn', async () => {
    const dir = await useTempDir('median-dev-heap-growth-');
    const script = join(dir, 'churn.mjs');
    await writeFile(script, CHURN);
    const child = spawn(process.execPath, [...binNodeArgs(BUNDLED_CLI_PATH), script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const collections = JSON.parse(out) as { beforeMiB: number; afterMiB: number }[];
    expect(collections.length).toBeGreaterThanOrEqual(10);
    expect(median(collections.map((c) => c.afterMiB))).toBeGreaterThan(8);
    expect(median(collections.map((c) => c.beforeMiB - c.afterMiB))).toBeLessThan(13);
  }, 20_000);
});
