import { spawn } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import type { EmulatedCall } from '../../../src/emulator/index.js';
import { runCliInProcess, spawnCli, type SpawnedCli } from '../../helpers/cli-harness.js';
import { childPids, eventsOf, isEvent, useE2eWorld, waitForEventAfter, type CliEvent, type E2eWorld } from '../../helpers/e2e-world.js';
import { FAULT_ROUTE, faultRouteCommand } from '../../helpers/fault-route.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/**
 * The dev server (the proxy's target) misbehaves under a running
 * `median-dev start`. Calls come from the emulator through the public URL
 * (tunnel server → tunnel → proxy → dev server), so the whole path is used.
 * Each call is recorded with the verdict Median would reach, and the tunnel
 * stays up throughout.
 */

interface Started {
  cli: SpawnedCli;
  toolsUrl: string;
  name: string;
}

async function startFaultRoute(world: E2eWorld, options: { supervised?: boolean; env?: Record<string, string> } = {}): Promise<Started> {
  const route = faultRouteCommand({ supervised: options.supervised === true });
  const cli = world.start({ childCommand: route.childCommand, env: { ...route.env, ...options.env } });
  const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
  const toolsUrl = synced.url as string;
  return { cli, toolsUrl, name: new URL(toolsUrl).hostname.split('.')[0]! };
}

/** A call from the emulator, and the CLI's `call` event for it. */
async function callThrough(world: E2eWorld, cli: SpawnedCli, toolsUrl: string, tool: string, input: Record<string, unknown> = {}): Promise<{ call: EmulatedCall; event: CliEvent }> {
  const mark = cli.events().length;
  const call = await world.emulator.callTool({ tool, input, endpointUrl: toolsUrl });
  const event = await waitForEventAfter(cli, mark, 'call', { toolCallId: call.toolCallId });
  return { call, event };
}

/** The records `median-dev calls --json` lists, by toolCallId. */
async function recordedCalls(world: E2eWorld): Promise<Map<string, CallRecord>> {
  const run = await runCliInProcess(['calls', '--json', '--data-dir', world.dataDir], { cwd: world.projectDir });
  expect(run.code).toBe(0);
  return new Map((JSON.parse(run.stdout) as CallRecord[]).map((r) => [r.toolCallId, r]));
}

/** The tunnel never went down, and the tunnel server still has the client with its sockets. */
function expectTunnelUp(world: E2eWorld, cli: SpawnedCli, name: string): void {
  expect(eventsOf(cli, 'tunnel', { state: 'down' })).toEqual([]);
  // (A stand-in name the first open gave back may linger for the server's grace, without sockets.)
  expect(world.tunnelServer.clients().find((c) => c.id === name)?.sockets).toBeGreaterThan(0);
  expect(cli.child.exitCode).toBeNull();
}

/** Waits for the dev server's `listening` line (its output reaches the CLI's stderr) after `fromChar`. */
async function waitForListening(cli: SpawnedCli, fromChar: number): Promise<number> {
  let pid = 0;
  await vi.waitFor(
    () => {
      const match = /fault-route: worker (\d+) listening/.exec(cli.stderr().slice(fromChar));
      expect(match).not.toBeNull();
      pid = Number(match![1]);
    },
    { timeout: 10_000, interval: 50 },
  );
  return pid;
}

describe('dev server (target) faults under median-dev start', () => {
  it('down at start: calls are answered 502 by the proxy and recorded not-answering, the tunnel stays up; once it runs they are answered', async () => {
    const world = await useE2eWorld();
    // Yesterday's run connected and synced the endpoint; Median keeps its tools.
    const yesterday = await startFaultRoute(world);
    expect(await yesterday.cli.stop('SIGINT')).toBe(0);

    // Today median-dev starts, and the dev server is not running.
    const cli = world.start({ childCommand: [] });
    const open = await cli.waitForEvent((e) => isEvent(e, 'tunnel', { state: 'open' }), 10_000);
    expect(open.url).toBe(new URL(yesterday.toolsUrl).origin);
    // The sync reaches no route: it fails, and Median keeps the last good tool set.
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'sync-failed' }));

    const down = await callThrough(world, cli, yesterday.toolsUrl, 'orderStatus', { orderNumber: 'A1001' });
    expect(down.call).toMatchObject({ status: 502, verdict: { kind: 'not-answering' } });
    // The proxy answered the 502 itself; the record holds no answer from the dev server, and the reason.
    expect(down.event).toMatchObject({ tool: 'orderStatus', status: null, verdict: 'not-answering' });

    // The dev server comes up on its port.
    const route = spawn(process.execPath, [FAULT_ROUTE], {
      env: { PATH: process.env.PATH, PORT: String(world.routePort), HOST: '127.0.0.1', MEDIAN_KEY: world.emulator.key },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    useTeardown(route, (r) => void r.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      route.stdout!.on('data', (chunk) => String(chunk).includes('listening') && resolve());
      route.once('exit', (code) => reject(new Error(`the fault route exited (${code})`)));
    });
    const up = await callThrough(world, cli, yesterday.toolsUrl, 'orderStatus', { orderNumber: 'A1001' });
    expect(up.call).toMatchObject({ status: 200, verdict: { kind: 'answered' } });
    expect(up.event).toMatchObject({ status: 200, verdict: 'answered' });
    // median-dev notices the dev server answering and syncs the endpoint again by itself.
    const resynced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 15_000);
    expect(resynced.url).toBe(yesterday.toolsUrl);

    const records = await recordedCalls(world);
    expect(records.get(down.call.toolCallId)).toMatchObject({
      response: null,
      verdict: { kind: 'not-answering' },
      error: { code: 'target_unreachable' },
    });
    expect(records.get(up.call.toolCallId)).toMatchObject({ response: { status: 200 }, verdict: { kind: 'answered' } });
    expectTunnelUp(world, cli, yesterday.name);
  });

  it('crashes mid-call: that call is recorded not-answering with an error, the child reported exited, the tunnel up; `median-dev restart` brings it back', async () => {
    const world = await useE2eWorld();
    const { cli, toolsUrl, name } = await startFaultRoute(world);
    const [firstPid] = childPids(cli);

    const crash = await callThrough(world, cli, toolsUrl, 'crashNow');
    expect(crash.call.verdict.kind).toBe('not-answering');
    expect(crash.event).toMatchObject({ tool: 'crashNow', verdict: 'not-answering' });
    expect(await cli.waitForEvent((e) => isEvent(e, 'child', { state: 'exited' }))).toMatchObject({ pid: firstPid, code: 3 });
    expectTunnelUp(world, cli, name);

    const mark = cli.events().length;
    const fromChar = cli.stderr().length;
    const restart = spawnCli(['restart', '--data-dir', world.dataDir], { cwd: world.projectDir });
    expect(await restart.exited).toBe(0);
    const running = await waitForEventAfter(cli, mark, 'child', { state: 'running' });
    expect(running.pid).not.toBe(firstPid);
    await waitForListening(cli, fromChar);

    const after = await callThrough(world, cli, toolsUrl, 'orderStatus', { orderNumber: 'A1001' });
    expect(after.event).toMatchObject({ status: 200, verdict: 'answered' });
    const records = await recordedCalls(world);
    expect(records.get(crash.call.toolCallId)).toMatchObject({
      tool: 'crashNow',
      response: null,
      verdict: { kind: 'not-answering' },
      error: { code: expect.stringMatching(/^target_/) },
    });
    expect(records.get(after.call.toolCallId)).toMatchObject({ verdict: { kind: 'answered' } });
    expectTunnelUp(world, cli, name);
  });

  it('restarts itself on another PID (like a dev server reloading): the gap is recorded not-answering, then the new process answers; no child restart', async () => {
    const world = await useE2eWorld();
    const { cli, toolsUrl, name } = await startFaultRoute(world, { supervised: true });
    const [supervisor] = childPids(cli);

    const before = await callThrough(world, cli, toolsUrl, 'whoAmI');
    expect(before.event).toMatchObject({ status: 200, verdict: 'answered' });
    const firstWorker = (JSON.parse(before.call.body!) as { result: { pid: number } }).result.pid;

    // The worker stops (a file changed) …
    let fromChar = cli.stderr().length;
    process.kill(supervisor!, 'SIGUSR2');
    await vi.waitFor(() => expect(cli.stderr().slice(fromChar)).toContain(`worker ${firstWorker} exited`), { timeout: 10_000, interval: 50 });
    const gap = await callThrough(world, cli, toolsUrl, 'whoAmI');
    expect(gap.call).toMatchObject({ status: 502, verdict: { kind: 'not-answering' } });
    expect(gap.event).toMatchObject({ status: null, verdict: 'not-answering' });

    // … and a new one comes up on the same port.
    fromChar = cli.stderr().length;
    process.kill(supervisor!, 'SIGUSR2');
    const secondWorker = await waitForListening(cli, fromChar);
    const after = await callThrough(world, cli, toolsUrl, 'whoAmI');
    expect(after.event).toMatchObject({ status: 200, verdict: 'answered' });
    expect((JSON.parse(after.call.body!) as { result: { pid: number } }).result.pid).toBe(secondWorker);
    expect(secondWorker).not.toBe(firstWorker);

    // median-dev saw its child (the supervisor) run all along.
    expect(childPids(cli)).toEqual([supervisor]);
    expect(eventsOf(cli, 'child', { state: 'exited' })).toEqual([]);
    const records = await recordedCalls(world);
    expect(records.get(gap.call.toolCallId)).toMatchObject({ verdict: { kind: 'not-answering' }, error: { code: 'target_unreachable' } });
    expectTunnelUp(world, cli, name);
  });

  it('answers slowly, past the (shortened) call limit: recorded not-answering as a late answer; a quick answer stays answered', async () => {
    const world = await useE2eWorld();
    // Median's 10 s limit, shortened to the emulator's 1 s by a hidden knob; slowReport's "second" lasts 100 ms.
    const { cli, toolsUrl, name } = await startFaultRoute(world, { env: { MEDIAN_DEV_CALL_TIMEOUT_MS: '1000' } });

    const quick = await callThrough(world, cli, toolsUrl, 'slowReport', { seconds: 1 });
    expect(quick.event).toMatchObject({ status: 200, verdict: 'answered' });

    const slow = await callThrough(world, cli, toolsUrl, 'slowReport', { seconds: 15 });
    // Median gave up at 1 s; the proxy kept listening and recorded the late answer.
    expect(slow.call).toMatchObject({ status: null, verdict: { kind: 'not-answering' } });
    expect(slow.event).toMatchObject({ tool: 'slowReport', status: 200, verdict: 'not-answering' });
    expect(slow.event.durationMs as number).toBeGreaterThanOrEqual(1_400);

    const records = await recordedCalls(world);
    expect(records.get(slow.call.toolCallId)).toMatchObject({ lateAnswer: true, response: { status: 200 }, verdict: { kind: 'not-answering' } });
    expect(records.get(quick.call.toolCallId)).toMatchObject({ lateAnswer: false, verdict: { kind: 'answered' } });
    expectTunnelUp(world, cli, name);
  });

  it('resets connections, before or during its answer: recorded not-answering with the reason, the tunnel up, the next call answered', async () => {
    const world = await useE2eWorld();
    const { cli, toolsUrl, name } = await startFaultRoute(world);

    const before = await callThrough(world, cli, toolsUrl, 'resetAnswer', { when: 'before' });
    expect(before.call).toMatchObject({ status: 502, verdict: { kind: 'not-answering' } });
    expect(before.event).toMatchObject({ status: null, verdict: 'not-answering' });

    const during = await callThrough(world, cli, toolsUrl, 'resetAnswer', { when: 'during' });
    expect(during.call.verdict.kind).toBe('not-answering');
    expect(during.event).toMatchObject({ status: 200, verdict: 'not-answering' });

    const next = await callThrough(world, cli, toolsUrl, 'orderStatus', { orderNumber: 'A1001' });
    expect(next.event).toMatchObject({ status: 200, verdict: 'answered' });

    const records = await recordedCalls(world);
    expect(records.get(before.call.toolCallId)).toMatchObject({ response: null, verdict: { kind: 'not-answering' }, error: { code: 'target_unreachable' } });
    expect(records.get(during.call.toolCallId)).toMatchObject({
      response: { status: 200, truncated: true },
      verdict: { kind: 'not-answering' },
      error: { code: 'target_reset' },
    });
    expectTunnelUp(world, cli, name);
  });
});
