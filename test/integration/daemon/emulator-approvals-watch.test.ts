import { describe, expect, it, vi } from 'vitest';
import { startEmulatorApprovals } from '../../../src/daemon/emulator-approvals.js';
import type { NewDaemonEvent } from '../../../src/events/index.js';
import { silentLogger } from '../../../src/shared/index.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useEmulator } from '../../helpers/use-emulator.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';

describe("the daemon's watch on the emulator's held calls", () => {
  it('asks on its clock, says a change once, and leaves no timer after close()', async () => {
    const { emulator } = await useEmulator();
    const clock = createManualClock();
    const events: NewDaemonEvent[] = [];
    const watch = useTeardown(startEmulatorApprovals({ apiUrl: emulator.url, key: () => emulator.key, clock, intervalMs: 1_000, emit: (e) => void events.push(e), logger: silentLogger }), (w) => w.close());
    // A high tool on an endpoint the emulator answers for itself, and a call of it held.
    await emulator.holdEndpoint({
      url: 'https://teammate.example.test/api/median',
      tools: [{ name: 'refundOrder', description: 'Refund an order when the customer asks for their money back.', risk: 'high', inputSchema: { type: 'object', properties: {}, additionalProperties: false } }],
    });
    const held = emulator.requestApproval({ tool: 'refundOrder' });
    // Nothing is asked before the clock says so; then the held call is told once, and the same list again is not told again.
    await Promise.resolve();
    expect(events).toEqual([]);
    clock.advance(0);
    await vi.waitFor(() => expect(events.map((e) => (e.event === 'emulator-approvals' ? e.approvals.map((a) => a.id) : e.event))).toEqual([[held.id]]));
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1));
    clock.advance(1_000);
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1));
    expect(events).toHaveLength(1);
    await watch.close();
    await watch.close();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('a Median API on this machine that is not the emulator (404): asked once, then never again', async () => {
    let asked = 0;
    const api = await useHttpServer((req, res) => {
      asked += 1;
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no"}}');
    });
    const clock = createManualClock();
    const watch = useTeardown(startEmulatorApprovals({ apiUrl: api.url, key: () => `median_key_${'a'.repeat(32)}`, clock, intervalMs: 1_000, emit: () => undefined, logger: silentLogger }), (w) => w.close());
    clock.advance(0);
    await vi.waitFor(() => expect(asked).toBe(1));
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(0));
    clock.advance(60_000);
    expect(asked).toBe(1);
    await expect(watch.decide('apr_x', 'approve')).rejects.toMatchObject({ code: 'not_emulator' });
  });
});
