import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { readControlFile } from '../../../src/control/index.js';
import { createCallStore } from '../../../src/recorder/index.js';
import { childPids, eventsOf, isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';
import { isProcessGroupAlive } from '../../../src/platform/index.js';
import { useFaultProxy } from '../../helpers/use-fault-proxy.js';
import { signedToolCall } from '../../helpers/signed-tool-call.js';

/** Calls announced before the kill: enough that some are surely in flight when it lands. */
const CALLS_BEFORE_KILL = 40;
const IN_FLIGHT = 8;

/** Sends signed tool calls to `url`, `inFlight` at a time, until `signal` aborts; failures (the daemon is gone) are expected. */
async function burst(url: string, key: string, signal: AbortSignal): Promise<number> {
  let sent = 0;
  const worker = async () => {
    while (!signal.aborted) {
      const call = signedToolCall(key);
      sent += 1;
      await fetch(url, { method: 'POST', headers: call.headers, body: call.body, signal }).then(
        (response) => response.arrayBuffer(),
        () => undefined, // refused or aborted once the daemon is killed
      );
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return sent;
}

describe('median-dev start: kill -9 and the next start', () => {
  it('keeps every announced call on disk, and the next start recovers: stale control file, same name asked for, endpoint changed in place', async () => {
    const world = await useE2eWorld();
    // In front of the tunnel server: it sees which name each registration asks for.
    const registry = await useFaultProxy(world.tunnelServer.url);
    const args = ['--tunnel-host', registry.url];
    const first = world.start({ args });
    const endpoint = await first.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const proxyUrl = eventsOf(first, 'proxy')[0]!.url as string;
    const name = new URL(endpoint.url as string).hostname.split('.')[0]!;
    expect(registry.requests.map((r) => r.path)).toEqual([`/${name}`]);
    const [firstChildPid] = childPids(first);
    // SIGKILL gives the daemon no chance to stop its dev server: it lives on, holding the route's
    // port, until the next start finds it noted in the data dir and stops it.

    const sending = new AbortController();
    const sent = burst(`${proxyUrl}/api/median`, world.emulator.key, sending.signal);
    await first.waitForEvent(() => eventsOf(first, 'call', { kind: 'tool-call' }).length >= CALLS_BEFORE_KILL, 15_000);
    first.child.kill('SIGKILL');
    await first.exited;
    if (!first.child.stdout!.closed) await once(first.child.stdout!, 'close');
    sending.abort();
    expect(await sent).toBeGreaterThan(CALLS_BEFORE_KILL);

    // Every call whose event went out is in the store.
    const announced = eventsOf(first, 'call').map((e) => e.id as string);
    expect(announced.length).toBeGreaterThanOrEqual(CALLS_BEFORE_KILL);
    const stored = new Set((await createCallStore(world.dataDir).list()).map((r) => r.id));
    expect(announced.filter((id) => !stored.has(id))).toEqual([]);
    const control = await readControlFile(world.dataDir);
    expect(control).toMatchObject({ pid: first.child.pid, isStale: true });

    // The name is taken now: the tunnel server hands out others, however often it is asked for.
    const registeredBefore = registry.requests.length;
    registry.failNext(1_000, { kind: 'rewrite', path: '/?new' }, (r) => r.path === `/${name}`);
    const second = world.start({ args });
    const changed = await second.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'changed' }));
    // The orphaned dev server was stopped, and the new one serves the route.
    expect(eventsOf(second, 'log').some((e) => String(e.message).includes(`pid ${firstChildPid}`))).toBe(true);
    expect(isProcessGroupAlive(firstChildPid!)).toBe(false);
    expect(eventsOf(second, 'child', { state: 'exited' })).toEqual([]);
    const resynced = await waitForEventAfter(second, 0, 'endpoint', { action: 'synced' });
    expect(registry.requests.slice(registeredBefore)[0]?.path).toBe(`/${name}`);
    expect(changed).toMatchObject({ id: endpoint.id });
    expect(resynced).toMatchObject({ id: endpoint.id, url: changed.url });
    expect(changed.url).not.toBe(endpoint.url);
    expect(eventsOf(second, 'endpoint', { action: 'connected' })).toEqual([]);
    expect(eventsOf(second, 'error').map((e) => e.code)).not.toContain('daemon_already_running');
    expect(await world.api.listEndpoints()).toEqual([expect.objectContaining({ id: endpoint.id, url: changed.url, status: 'synced' })]);
    expect(await readControlFile(world.dataDir)).toMatchObject({ pid: second.child.pid, isStale: false });

    // Recording goes on after the torn end the kill may have left, and nothing announced is lost.
    const newProxyUrl = eventsOf(second, 'proxy')[0]!.url as string;
    const call = signedToolCall(world.emulator.key);
    const response = await fetch(`${newProxyUrl}/api/median`, { method: 'POST', headers: call.headers, body: call.body });
    await response.arrayBuffer();
    const after = await second.waitForEvent((e) => isEvent(e, 'call', { toolCallId: call.toolCallId }));
    const storedAfter = new Set((await createCallStore(world.dataDir).list()).map((r) => r.id));
    expect([...announced, after.id as string].filter((id) => !storedAfter.has(id))).toEqual([]);
  });
});
