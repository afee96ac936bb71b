import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectAllGarbage } from '../../../src/cli/reclaim-after-bursts.js';

const MiB = 2 ** 20;

describe('collectAllGarbage (V8 itself, through the inspector protocol)', () => {
  it('frees what a burst left behind and gives its pages back', async () => {
    // A burst's leftovers: objects that outlived a few scavenges (promoted), then dropped.
    let kept: Array<{ id: number; text: string }> | undefined = [];
    for (let i = 0; i < 300_000; i += 1) kept.push({ id: i, text: `call ${i} ${'x'.repeat(40)}` });
    expect(kept).toHaveLength(300_000);
    kept = undefined;
    const before = getHeapStatistics();
    await collectAllGarbage();
    const after = getHeapStatistics();
    expect(before.used_heap_size - after.used_heap_size).toBeGreaterThan(20 * MiB);
    // The pages, not only the objects: the heap's resident size went down too.
    expect(before.total_physical_size - after.total_physical_size).toBeGreaterThan(10 * MiB);
  });

  it('can run again and again (each time on a session of its own)', async () => {
    await collectAllGarbage();
    await collectAllGarbage();
    expect(getHeapStatistics().used_heap_size).toBeGreaterThan(0);
  });
});
