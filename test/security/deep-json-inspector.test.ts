import { describe, expect, it, vi } from 'vitest';
import type { ApiError, CallPage, InspectorStatus, LiveMessage } from '../../src/events/inspector-api.js';
import { diffResponses, type CallRecord } from '../../src/median/index.js';
import { deepToolCallBody, sendDeepCall } from '../helpers/deep-call.js';
import { isEvent, useE2eWorld } from '../helpers/e2e-world.js';
import { browserSession, type InspectorSession } from '../helpers/inspector-session.js';
import { useTeardown } from '../helpers/use-teardown.js';

/** The live channel as the page reads it: one JSON message a line, kept as they come. */
async function openLive(session: InspectorSession): Promise<{ messages: LiveMessage[] }> {
  const controller = useTeardown(new AbortController(), (c) => c.abort());
  const res = await session.fetch('/api/live', { method: 'POST', signal: controller.signal });
  expect(res.status).toBe(200);
  const messages: LiveMessage[] = [];
  let pending = '';
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of res.body! as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line.trim() !== '') messages.push(JSON.parse(line) as LiveMessage);
    }
  })().catch(() => undefined); // aborted when the test ends
  return { messages };
}

/**
 * The same 200,000-deep call from the internet, read back through every
 * route the inspector page uses: the live channel, the list (plain and
 * filtered, a plain word reads bodies), the detail, its curl, the HAR, the
 * status, the tools, saving it as a test, replaying it (unchanged: sent
 * as recorded; rebuilt: refused) and the diff of the two. None answers
 * 500, the daemon stays up, and a later call is recorded.
 */
describe('the inspector API on a call nested 200,000 deep', () => {
  it('answers every route the page uses without a 500, and keeps recording', async () => {
    const world = await useE2eWorld();
    const daemon = world.start({ args: ['--inspector-port', '0'] });
    const announced = await daemon.waitForEvent((e) => isEvent(e, 'inspector'));
    await daemon.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const session = await browserSession(announced.link as string);
    const live = await openLive(session);
    await vi.waitFor(() => expect(live.messages[0]?.type).toBe('hello'));

    expect((await sendDeepCall(world, daemon)).status).toBe(401);
    const row = await vi.waitFor(
      () => {
        // Too deep to read as a call, it still keeps the toolCallId and tool it was sent with.
        const found = live.messages.find((m) => m.type === 'call' && m.row.toolCallId === 'call_deep');
        expect(found).toBeDefined();
        return (found as Extract<LiveMessage, { type: 'call' }>).row;
      },
      { timeout: 15_000 },
    );
    expect(row).toMatchObject({ tool: 'orderStatus', signature: 'missing_signature', status: 401 });

    const list = await session.get<CallPage>('/api/calls?limit=10');
    expect(list.rows.map((r) => r.id)).toContain(row.id);
    for (const filter of ['call_deep', 'sig:missing', 'status:401']) {
      const page = await session.get<CallPage>(`/api/calls?filter=${encodeURIComponent(filter)}`);
      expect(page.rows.map((r) => r.id), filter).toContain(row.id);
    }
    // The detail holds the whole request as it came: nothing cut, nothing lost.
    const record = await session.get<CallRecord>(`/api/calls/${row.id}`);
    expect(record.request.body).toBe(deepToolCallBody());
    expect((await session.get<CallRecord>('/api/calls/call_deep')).id).toBe(row.id);
    expect((await session.get<InspectorStatus>('/api/status')).daemon.tunnel.state).toBe('open');
    const har = await session.get<{ log: { entries: Array<{ request: { postData?: { text: string } } }> } }>('/api/har');
    expect(har.log.entries.some((e) => e.request.postData?.text === deepToolCallBody())).toBe(true);
    expect((await session.get<{ tools: unknown[] | null }>('/api/tools')).tools).not.toBeNull();

    // Refused with a code, as any unsigned call is (curl) and as too deep to write as a file (save).
    const curl = await session.fetch(`/api/calls/${row.id}/curl`);
    expect([curl.status, ((await curl.json()) as ApiError).error.code]).toEqual([409, 'replay_unsigned_original']);
    const saved = await session.post(`/api/calls/${row.id}/save`, {});
    expect([saved.status, ((await saved.json()) as ApiError).error.code]).toEqual([400, 'saved_call_too_deep']);
    // What the page sends for a record whose input it cannot read (its editor fell back to {}), and a new id (the body
    // rebuilt from an input nothing can write back): refused with a code before anything is sent.
    for (const body of [{ input: {} }, { newId: true }, { newId: true, input: { orderNumber: 'A1001' } }]) {
      const refused = await session.post('/api/replay', { id: row.id, confirmed: true, allowUnsignedOriginal: true, ...body });
      expect([refused.status, ((await refused.json()) as ApiError).error.code], JSON.stringify(body)).toEqual([400, 'replay_too_deep']);
    }
    const replayed = await session.post('/api/replay', { id: row.id, confirmed: true, allowUnsignedOriginal: true });
    expect(replayed.status, await replayed.clone().text()).toBeLessThan(500);
    const replay = (await replayed.json()) as { toolCallId: string; replayOf: string };
    // The page's edited input is read bounded too: one nested as deep is a coded 400, not a stack overflow when it is signed.
    const deepInput = await session.fetch('/api/replay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"id":"${row.id}","newId":true,"confirmed":true,"allowUnsignedOriginal":true,"input":{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}}` });
    expect([deepInput.status, ((await deepInput.json()) as ApiError).error.code]).toEqual([400, 'invalid_json_body']);
    expect(replay).toMatchObject({ toolCallId: 'call_deep', replayOf: row.id });
    // The page's diff: the replay's row is matched as the page matches it, both records fetched and compared.
    const replayRow = await vi.waitFor(
      () => {
        const found = live.messages.find((m) => m.type === 'call' && m.row.replayOf === replay.replayOf && m.row.toolCallId === replay.toolCallId);
        expect(found).toBeDefined();
        return (found as Extract<LiveMessage, { type: 'call' }>).row;
      },
      { timeout: 15_000 },
    );
    const replayRecord = await session.get<CallRecord>(`/api/calls/${replayRow.id}`);
    expect(replayRecord.request.body).toBe(deepToolCallBody());
    // The dev server got that replay only: the refused ones reached neither the proxy nor the route.
    expect((await session.get<CallPage>(`/api/calls?filter=${encodeURIComponent('is:replay')}`)).rows.map((r) => r.id)).toEqual([replayRow.id]);
    expect(() => diffResponses(record, replayRecord)).not.toThrow();

    // Still up, still recording: a later call shows on the live channel and in the list.
    expect(daemon.child.exitCode).toBeNull();
    const seen = live.messages.length;
    await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } });
    const later = await vi.waitFor(
      () => {
        const found = live.messages.slice(seen).find((m) => m.type === 'call' && m.row.tool === 'orderStatus' && m.row.signature === 'valid');
        expect(found).toBeDefined();
        return (found as Extract<LiveMessage, { type: 'call' }>).row;
      },
      { timeout: 15_000 },
    );
    expect((await session.get<CallPage>('/api/calls?limit=10')).rows[0]!.id).toBe(later.id);
  });
});
