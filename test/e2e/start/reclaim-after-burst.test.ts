import { describe, expect, it } from 'vitest';
import { useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';

const HANDED_BACK = 'Handed back the memory of a burst of calls';

describe('median-dev start: memory handed back after a burst of calls', () => {
  it('collects once the calls have been quiet for a second, and the daemon goes on', async () => {
    const world = await useE2eWorld();
    // Any growth counts (MEDIAN_DEV_RECLAIM_GROWTH_BYTES=0), so one call makes a burst; --debug says when it collects.
    const cli = world.start({ args: ['--debug'], env: { MEDIAN_DEV_RECLAIM_GROWTH_BYTES: '0' } });
    const synced = await waitForEventAfter(cli, 0, 'endpoint', { action: 'synced' }, 30_000);
    const toolsUrl = String(synced.url);
    // No call yet: nothing to hand back (the unit test shows an idle daemon has no timer at all).
    expect(cli.stderr()).not.toContain(HANDED_BACK);

    const mark = cli.events().length;
    const call = await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' }, endpointUrl: toolsUrl });
    expect(call).toMatchObject({ status: 200, verdict: { kind: 'answered' } });
    await waitForEventAfter(cli, mark, 'call', { toolCallId: call.toolCallId });
    const calledAt = Date.now();
    await expect.poll(() => cli.stderr(), { timeout: 10_000, interval: 50 }).toContain(HANDED_BACK);
    expect(Date.now() - calledAt).toBeGreaterThanOrEqual(800); // the quiet second came first
    expect(cli.stderr()).toMatch(/Handed back the memory of a burst of calls: the heap's resident size \d+\.\d → \d+\.\d MiB\./);

    // The daemon goes on: the next call is answered and recorded, and it stops cleanly (no timer or session left).
    const next = await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1002' }, endpointUrl: toolsUrl });
    expect(next).toMatchObject({ status: 200, verdict: { kind: 'answered' } });
    await waitForEventAfter(cli, mark, 'call', { toolCallId: next.toolCallId });
    expect(await cli.stop('SIGINT')).toBe(0);
  }, 60_000);
});
