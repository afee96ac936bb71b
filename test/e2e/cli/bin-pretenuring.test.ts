import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binNodeArgs } from '../../../bench/bin-node-args.js';
import { BUNDLED_CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';

// Objects of one allocation site (like a call's request) that outlive one scavenge and die before the next: V8
// measures that most of them survive a scavenge and, with pretenuring, allocates that site's objects straight in
// the old generation, where each dies as garbage that only a full collection frees. The script counts the full
// collections while it makes a million of them (with short-lived garbage between, the scavenges' pace).
const CHURN = `
import { PerformanceObserver, constants } from 'node:perf_hooks';
let majors = 0;
const count = (entries) => {
  for (const entry of entries) if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors += 1;
};
const observer = new PerformanceObserver((list) => count(list.getEntries()));
observer.observe({ entryTypes: ['gc'] });
const RING = 1500;
const ring = new Array(RING);
const make = (n) => ({ n, id: 'x' + n, headers: { a: 'b', c: 'd' + n }, list: [n, n + 1, n + 2], body: { deep: { n } } });
for (let n = 0; n < 1_000_000; n += 1) {
  ring[n % RING] = make(n);
  for (let j = 0; j < 20; j += 1) JSON.stringify({ j, n });
}
// Node makes a collection's entry in an immediate after it: one turn of the loop, then the entries not yet delivered.
await new Promise((resolve) => setImmediate(resolve));
count(observer.takeRecords());
process.stdout.write(JSON.stringify({ majors }));
`;

describe("the bin's node options keep short-lived objects in the young generation", () => {
  // Measured with Node 20: V8's default pretenuring makes ~24 full collections of this run, the bin's options 2 (V8's
  // own at start-up). The semi-spaces are pinned at 4 MiB (the bin's own size until 2026-12-02, where the script was
  // measured) so the scavenges' pace does not depend on V8's growth: with 2 the ring outlives two scavenges and is promoted by age.
  it('objects that outlive one scavenge are not made in the old generation (no full collection for them)', async () => {
    const dir = await useTempDir('median-dev-pretenuring-');
    const script = join(dir, 'churn.mjs');
    await writeFile(script, CHURN);
    const child = spawn(process.execPath, [...binNodeArgs(BUNDLED_CLI_PATH), '--min-semi-space-size=4', '--max-semi-space-size=4', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const { majors } = JSON.parse(out) as { majors: number };
    expect(majors).toBeLessThanOrEqual(6);
  }, 20_000);
});
