import { describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useEmulator } from '../../helpers/use-emulator.js';

const REFUND = { name: 'refundOrder', description: 'Refund an order when the customer asks for their money back.', risk: 'high', inputSchema: { type: 'object', properties: {}, additionalProperties: false } } as const;

/** An emulator whose time the test drives, with a high tool on an endpoint it answers for itself. */
async function useHeldTool() {
  const clock = createManualClock();
  const { emulator } = await useEmulator({ clock });
  await emulator.holdEndpoint({ url: 'https://teammate.example.test/api/median', tools: [REFUND] });
  const ask = async (query: string, signal?: AbortSignal) => {
    const response = await fetch(`${emulator.url}/v1/emulator/approvals?${query}`, { headers: { authorization: `Bearer ${emulator.key}` }, ...(signal ? { signal } : {}) });
    return { status: response.status, body: (await response.json()) as { approvals: Array<{ id: string }>; version: number; error?: { code: string } } };
  };
  return { emulator, clock, ask };
}

describe("the emulator's approvals long poll (since + wait)", () => {
  it('holds the ask until the list changes, then answers at once with the new version', async () => {
    const { emulator, clock, ask } = await useHeldTool();
    const first = await ask('state=pending');
    expect(first).toMatchObject({ status: 200, body: { approvals: [] } });
    const timersBefore = clock.pendingTimers();
    let settled = false;
    const held = ask(`state=pending&since=${first.body.version}&wait=25`).finally(() => (settled = true));
    // The emulator holds it: its wait's timer is set, and no answer comes.
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(timersBefore + 1));
    clock.advance(24_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    const approval = emulator.requestApproval({ tool: 'refundOrder' });
    const answer = await held;
    expect(answer.body.approvals.map((a) => a.id)).toEqual([approval.id]);
    expect(answer.body.version).toBeGreaterThan(first.body.version);
    expect(clock.pendingTimers()).toBe(timersBefore + 1); // the wait's timer gone, the approval's expiry set
    // A version that is not the list's now is answered at once.
    expect((await ask(`state=pending&since=${first.body.version}&wait=25`)).body.approvals.map((a) => a.id)).toEqual([approval.id]);
  });

  it('answers the same list at the wait’s end (capped at 25 s), and refuses a bad wait', async () => {
    const { clock, ask } = await useHeldTool();
    const { version } = (await ask('state=pending')).body;
    const timersBefore = clock.pendingTimers();
    const held = ask(`state=pending&since=${version}&wait=600`);
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(timersBefore + 1));
    clock.advance(25_000);
    expect(await held).toMatchObject({ status: 200, body: { approvals: [], version } });
    expect(clock.pendingTimers()).toBe(timersBefore);
    expect(await ask('state=pending&since=1&wait=soon')).toMatchObject({ status: 400, body: { error: { code: 'invalid_body' } } });
    expect(await ask('state=pending&since=-1&wait=5')).toMatchObject({ status: 400, body: { error: { code: 'invalid_body' } } });
  });

  it('an asker that goes away stops the wait: no timer is left for it', async () => {
    const { clock, ask } = await useHeldTool();
    const { version } = (await ask('state=pending')).body;
    const timersBefore = clock.pendingTimers();
    const abort = new AbortController();
    const held = ask(`state=pending&since=${version}&wait=25`, abort.signal);
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(timersBefore + 1));
    abort.abort();
    await expect(held).rejects.toMatchObject({ name: 'AbortError' });
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(timersBefore));
  });
});
