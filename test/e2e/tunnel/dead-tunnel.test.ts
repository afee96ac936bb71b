import { describe, expect, it } from 'vitest';
import type { SpawnedCli } from '../../helpers/cli-harness.js';
import { childPids, eventsOf, isEvent, useE2eWorld, waitForEventAfter, type E2eWorld } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/**
 * `median-dev start` against a loopback tunnel server that keeps its sockets
 * open but stops forwarding. Its `.test` hostnames have no DNS: the daemon
 * probes its public URL through the `--tunnel-host` it was given (what can
 * reach the URL from here decides, not the name's suffix), with its default
 * probe timing and no test knob.
 */
async function startProbed(world: E2eWorld): Promise<{ cli: SpawnedCli; toolsUrl: string; name: string }> {
  const cli = world.start();
  const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
  const toolsUrl = synced.url as string;
  return { cli, toolsUrl, name: new URL(toolsUrl).hostname.split('.')[0]! };
}

async function expectCallAnswered(world: E2eWorld, cli: SpawnedCli, toolsUrl: string): Promise<void> {
  const mark = cli.events().length;
  const call = await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' }, endpointUrl: toolsUrl });
  expect(call).toMatchObject({ status: 200, verdict: { kind: 'answered' } });
  expect(await waitForEventAfter(cli, mark, 'call', { toolCallId: call.toolCallId })).toMatchObject({ verdict: 'answered' });
}

const isPosix = process.platform !== 'win32';

describe('median-dev start: a tunnel that dies silently', () => {
  it('the server stops forwarding: down within 30 s (probe-failed), reopened under the same URL, synced, calls answered', async () => {
    const world = await useE2eWorld();
    const { cli, toolsUrl, name } = await startProbed(world);
    const mark = cli.events().length;
    const wedgedAt = Date.now();
    world.tunnelServer.setForwarding(name, false);

    const down = await waitForEventAfter(cli, mark, 'tunnel', { state: 'down' }, 35_000);
    expect(down.reason).toEqual(expect.stringMatching(/^probe-failed/));
    expect(Date.parse(down.at as string) - wedgedAt).toBeLessThan(30_000);
    await waitForEventAfter(cli, mark, 'tunnel', { state: 'open', url: new URL(toolsUrl).origin }, 10_000);
    await waitForEventAfter(cli, mark, 'endpoint', { action: 'synced', url: toolsUrl }, 10_000);
    await expectCallAnswered(world, cli, toolsUrl);
    expect(childPids(cli)).toHaveLength(1);
  }, 75_000);

  it.skipIf(!isPosix)(
    'sleep and wake: daemon and dev server stopped while the server forgets the tunnel; synced ≤ 3 s after SIGCONT, same dev server',
    async () => {
      const world = await useE2eWorld();
      const { cli, toolsUrl, name } = await startProbed(world);
      const [childPid] = childPids(cli);
      const daemonPid = cli.child.pid!;
      // Whatever happens below, nothing is left stopped.
      useTeardown(null, () => {
        for (const pid of [daemonPid, childPid!]) {
          try {
            process.kill(pid, 'SIGCONT');
          } catch {
            // already gone
          }
        }
      });
      // The lid closes: both stop, as the whole machine would.
      process.kill(daemonPid, 'SIGSTOP');
      process.kill(childPid!, 'SIGSTOP');
      const mark = cli.events().length;
      // Meanwhile the tunnel server forgets us; our sockets stay open and nothing tells the daemon.
      world.tunnelServer.forgetClientKeepingSockets(name);
      // A fixed window on purpose: no event can mark it, as both processes are stopped and the daemon sees the
      // gap only once it runs again. The processes stay stopped just over the 10 s tick of the daemon's wake
      // detector plus the 5 s it may come late before it means a stop (startTunnel's wakeJumpMs), with 1 s for
      // the signals. (A real sleep is seen by the wall clock running ahead of the monotonic one: wake-detector.test.ts.)
      await new Promise((resolve) => setTimeout(resolve, 16_000));
      process.kill(childPid!, 'SIGCONT');
      process.kill(daemonPid, 'SIGCONT');
      const wokeAt = Date.now();

      const down = await waitForEventAfter(cli, mark, 'tunnel', { state: 'down' }, 5_000);
      expect(down.reason).toEqual(expect.stringMatching(/^woke/));
      const synced = await waitForEventAfter(cli, mark, 'endpoint', { action: 'synced', url: toolsUrl }, 5_000);
      const healSeconds = (Date.parse(synced.at as string) - wokeAt) / 1000;
      console.log(`sleep/wake: synced ${healSeconds.toFixed(2)} s after SIGCONT`);
      expect(healSeconds).toBeLessThanOrEqual(3);
      await expectCallAnswered(world, cli, toolsUrl);
      // The dev server that slept along was not taken for crashed.
      expect(childPids(cli)).toEqual([childPid]);
      expect(eventsOf(cli, 'child', { state: 'exited' })).toEqual([]);
    },
    60_000,
  );
});
