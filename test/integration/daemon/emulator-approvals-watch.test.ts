import { describe, expect, it, vi } from 'vitest';
import { startEmulatorApprovals } from '../../../src/daemon/emulator-approvals.js';
import type { NewDaemonEvent } from '../../../src/events/index.js';
import { silentLogger } from '../../../src/shared/index.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useEmulator } from '../../helpers/use-emulator.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';

describe("the daemon's watch on the emulator's held calls", () => {
  it('asks on its clock, then long-polls: a held call is told at once, a quiet wait ends in a new ask, close() aborts it', async () => {
    // Both clocks driven by the test: the emulator's holds the long poll, the daemon's the first ask and back-offs.
    const emulatorClock = createManualClock();
    const { emulator } = await useEmulator({ clock: emulatorClock });
    // A high tool on an endpoint the emulator answers for itself.
    await emulator.holdEndpoint({
      url: 'https://teammate.example.test/api/median',
      tools: [{ name: 'refundOrder', description: 'Refund an order when the customer asks for their money back.', risk: 'high', inputSchema: { type: 'object', properties: {}, additionalProperties: false } }],
    });
    const emulatorTimers = emulatorClock.pendingTimers();
    const clock = createManualClock();
    const events: NewDaemonEvent[] = [];
    const ids = () => events.map((e) => (e.event === 'emulator-approvals' ? e.approvals.map((a) => a.id) : e.event));
    const watch = useTeardown(startEmulatorApprovals({ apiUrl: emulator.url, key: () => emulator.key, clock, intervalMs: 1_000, emit: (e) => void events.push(e), logger: silentLogger }), (w) => w.close());
    const held = emulator.requestApproval({ tool: 'refundOrder' });
    // Nothing is asked before the clock says so; then the held call is told once.
    await Promise.resolve();
    expect(events).toEqual([]);
    clock.advance(0);
    await vi.waitFor(() => expect(ids()).toEqual([[held.id]]));
    // The next ask is held open by the emulator (its wait's timer, beside the approval's expiry).
    await vi.waitFor(() => expect(emulatorClock.pendingTimers()).toBe(emulatorTimers + 2));
    // A second held call is told without the daemon's clock moving: the open ask answers on the change.
    const second = emulator.requestApproval({ tool: 'refundOrder' });
    await vi.waitFor(() => expect(ids()).toEqual([[held.id], [held.id, second.id]]));
    await vi.waitFor(() => expect(emulatorClock.pendingTimers()).toBe(emulatorTimers + 3));
    // The wait ends with no change: the same list is not told again, and the daemon asks again at once.
    emulatorClock.advance(25_000);
    await vi.waitFor(() => expect(emulatorClock.pendingTimers()).toBe(emulatorTimers + 3));
    expect(events).toHaveLength(2);
    // close() aborts the open ask: the emulator's wait for it ends, and the daemon keeps no timer.
    await watch.close();
    await watch.close();
    expect(clock.pendingTimers()).toBe(0);
    await vi.waitFor(() => expect(emulatorClock.pendingTimers()).toBe(emulatorTimers + 2));
  });

  it('an older emulator (no version, no long poll) is asked on the interval, not at once again', async () => {
    let asked = 0;
    const api = await useHttpServer((req, res) => {
      // The emulator's answer before the long poll: the list, no `version`, whatever `wait` says.
      asked += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"approvals":[]}');
    });
    const clock = createManualClock();
    const watch = useTeardown(startEmulatorApprovals({ apiUrl: api.url, key: () => `median_key_${'a'.repeat(32)}`, clock, intervalMs: 1_000, emit: () => undefined, logger: silentLogger }), (w) => w.close());
    clock.advance(0);
    await vi.waitFor(() => expect(asked).toBe(1));
    await vi.waitFor(() => expect(clock.nextTimerIn()).toBe(1_000));
    clock.advance(1_000);
    await vi.waitFor(() => expect(asked).toBe(2));
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
