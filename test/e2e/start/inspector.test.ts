import { describe, expect, it } from 'vitest';
import type { CallPage, InspectorStatus } from '../../../src/events/inspector-api.js';
import type { CallRecord } from '../../../src/median/index.js';
import { spawnCli } from '../../helpers/cli-harness.js';
import { spendLink } from '../../helpers/spend-link.js';
import { browserSession } from '../../helpers/inspector-session.js';
import { isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';

describe('median-dev start: the browser inspector', () => {
  it('prints its URL once with a one-time link, lists calls, replays one, and `inspect` makes a fresh link', async () => {
    const world = await useE2eWorld();
    const run = world.start({ args: ['--inspector-port', '0'] });
    const announced = await run.waitForEvent((e) => isEvent(e, 'inspector'));
    expect(announced.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(announced.link).toMatch(new RegExp(`^${announced.url as string}/session\\?token=[A-Za-z0-9_-]{20,}$`));
    await run.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const session = await browserSession(announced.link as string);
    // The link is spent.
    expect((await spendLink(announced.link as string)).status).toBe(401);

    const before = run.events().length;
    await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } });
    const call = await waitForEventAfter(run, before, 'call', { tool: 'orderStatus' });
    const page = await session.get<CallPage>('/api/calls?limit=10');
    expect(page.rows[0]).toMatchObject({ id: call.id, tool: 'orderStatus', verdict: 'answered', signature: 'valid' });
    const filtered = await session.get<CallPage>(`/api/calls?filter=${encodeURIComponent('tool:orderStatus')}`);
    expect(filtered.rows.every((row) => row.tool === 'orderStatus')).toBe(true);
    expect(filtered.total).toBeGreaterThanOrEqual(1);
    const record = await session.get<CallRecord>(`/api/calls/${call.id as string}`);
    expect(record.toolCallId).toBe(call.toolCallId);
    const status = await session.get<InspectorStatus>('/api/status');
    expect(status.daemon).toMatchObject({ tunnel: { state: 'open' }, endpoint: { status: 'synced' }, child: { state: 'running' }, inspectorUrl: announced.url });
    const { curl } = await session.get<{ curl: string }>(`/api/calls/${call.id as string}/curl`);
    expect(curl).toContain('median-signature: t=');
    expect(curl).not.toContain(world.emulator.key);

    const replayed = await session.post('/api/replay', { id: call.id, newId: true, input: { orderNumber: 'A1002' } });
    expect(replayed.status).toBe(200);
    const answer = (await replayed.json()) as { toolCallId: string; replayOf: string };
    expect(answer.replayOf).toBe(call.id);
    const replayEvent = await waitForEventAfter(run, before, 'call', { toolCallId: answer.toolCallId });
    expect(replayEvent.replayOf).toBe(call.id);

    const inspect = spawnCli(['inspect', '--no-open', '--json', '--data-dir', world.dataDir], { cwd: world.projectDir });
    expect(await inspect.exited).toBe(0);
    const fresh = JSON.parse(inspect.stdout()) as { url: string; link: string; opened: boolean };
    expect(fresh).toMatchObject({ url: announced.url, opened: false });
    expect(fresh.link).not.toBe(announced.link);
    await browserSession(fresh.link);
    expect(run.events().filter((e) => isEvent(e, 'inspector'))).toHaveLength(1);
  });

  it('--no-inspector serves none, and `inspect` says so', async () => {
    const world = await useE2eWorld();
    const run = world.start({ args: ['--no-inspector'] });
    await run.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    expect(run.events().filter((e) => isEvent(e, 'inspector'))).toEqual([]);
    const inspect = spawnCli(['inspect', '--no-open', '--data-dir', world.dataDir], { cwd: world.projectDir });
    expect(await inspect.exited).toBe(1);
    expect(inspect.stderr()).toContain('inspector_off');
  });
});
