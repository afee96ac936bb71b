import { describe, expect, it, vi } from 'vitest';
import { connectToDaemon } from '../../src/control/index.js';
import type { CallRecord } from '../../src/median/index.js';
import { CLI_PATH, runCliInProcess } from '../helpers/cli-harness.js';
import { sendDeepCall } from '../helpers/deep-call.js';
import { EXAMPLE_ROUTE, isEvent, useE2eWorld, type E2eWorld } from '../helpers/e2e-world.js';
import { useTmux } from '../helpers/use-tmux.js';
import { requestVia } from '../helpers/use-tunnel-server.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const cliOf = (world: E2eWorld) => (args: string[]) => runCliInProcess([...args, '--data-dir', world.dataDir, '--env', world.envFile], { cwd: world.projectDir, env: {} });

/** The records the store holds now (`calls --json`). */
async function recorded(world: E2eWorld): Promise<CallRecord[]> {
  return JSON.parse((await cliOf(world)(['calls', '--json'])).stdout) as CallRecord[];
}

/** `start` with its TUI in a real tmux terminal (the world's flags but `--json`/`--no-tui`); the daemon's snapshot once it is synced. */
async function startWithTui(world: E2eWorld, env: Record<string, string> = {}) {
  const args = world.startArgs().filter((arg) => arg !== '--json' && arg !== '--no-tui');
  const pane = await useTmux([process.execPath, CLI_PATH, ...args, '--', process.execPath, EXAMPLE_ROUTE], {
    width: 140,
    height: 40,
    cwd: world.projectDir,
    env: { PORT: String(world.routePort), HOST: '127.0.0.1', MEDIAN_API_URL: world.emulator.url, TERM: 'xterm-256color', ...env },
  });
  const snapshot = await vi.waitFor(
    async () => {
      const client = await connectToDaemon(world.dataDir);
      await client.close();
      expect(client.snapshot.endpoint?.status).toBe('synced');
      return client.snapshot;
    },
    { timeout: 30_000, interval: 250 },
  );
  return { pane, snapshot };
}

describe('the terminal UI on a real daemon', () => {
  it('`watch` draws the list and the detail of a call nested 200,000 deep', async () => {
    const world = await useE2eWorld();
    const daemon = world.start();
    await daemon.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    expect((await sendDeepCall(world, daemon)).status).toBe(401);
    await vi.waitFor(async () => expect((await recorded(world)).some((r) => r.toolCallId === 'call_deep')).toBe(true), { timeout: 15_000 });

    const pane = await useTmux([process.execPath, CLI_PATH, 'watch', '--data-dir', world.dataDir, '--env', world.envFile], { width: 140, height: 40, cwd: world.projectDir, env: { TERM: 'xterm-256color' } });
    await vi.waitFor(async () => expect(await pane.text()).toMatch(/orderStatus.*401/), { timeout: 30_000, interval: 200 });
    // The deep call is the newest row: Enter opens its detail.
    await pane.sendKeys('Enter');
    // The detail: its header names the call, its request (the deep body, as text) runs to thousands of lines.
    await vi.waitFor(async () => expect(await pane.text()).toMatch(/Detail 1–\d+ of \d{4,} lines/), { timeout: 15_000, interval: 200 });
    const detail = await pane.text();
    expect(detail).toMatch(/orderStatus\s+call_deep/);
    expect(detail).toMatch(/HTTP 401 +not-answering/);
    expect(detail).not.toMatch(/could not be drawn|Maximum call stack|This is a bug/);
    // Still the TUI, and the daemon still records: a later call appears in the list.
    await pane.sendKeys('Escape');
    await world.emulator.callTool({ tool: 'lookupCustomer', input: { email: 'ada@example.com' } });
    await vi.waitFor(async () => expect(await pane.text()).toContain('lookupCustomer'), { timeout: 15_000, interval: 200 });
    expect(daemon.child.exitCode).toBeNull();
    await pane.sendKeys('q');
  }, 90_000);
});

describe('a crash in a view, or in the daemon', () => {
  it('a screen that cannot draw at all stops the TUI only: the user is told, the proxy, tunnel and recording go on', async () => {
    const world = await useE2eWorld();
    // The first frame showing the deep call breaks every write to the terminal (see src/cli/crash-knobs.ts).
    const { pane, snapshot } = await startWithTui(world, { MEDIAN_DEV_TEST_CRASH_VIEW: 'call_deep' });
    const childPid = snapshot.child.pid!;
    expect((await sendDeepCall(world, { tunnelUrl: snapshot.tunnel.url! })).status).toBe(401);
    await vi.waitFor(async () => expect(await pane.text()).toContain('the terminal UI stopped'), { timeout: 20_000, interval: 200 });
    expect(await pane.text()).toMatch(/(median-dev|main\.js) watch` shows it again/);

    // The daemon outlived its TUI: the proxy answers, the tunnel carries calls, they are recorded and printed as lines.
    expect((await fetch(`${snapshot.proxyUrl!}/__median-dev/health`)).status).toBe(200);
    await world.emulator.callTool({ tool: 'lookupCustomer', input: { email: 'ada@example.com' } });
    await vi.waitFor(async () => expect((await recorded(world)).some((r) => r.tool === 'lookupCustomer' && r.signature === 'valid')).toBe(true), { timeout: 15_000 });
    const host = new URL(snapshot.tunnel.url!).host;
    expect((await requestVia(world.tunnelServer, host, { method: 'POST', path: '/api/median', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBeLessThan(500);
    await vi.waitFor(async () => expect(await pane.text()).toContain('lookupCustomer'), { timeout: 15_000, interval: 200 });
    expect(isAlive(childPid)).toBe(true);
  }, 90_000);

  it('an error while the TUI takes a key stops the TUI only: the daemon records on', async () => {
    const world = await useE2eWorld();
    // The first chunk of input holding `z` throws beside blessed's key parser (see src/cli/crash-knobs.ts).
    const { pane, snapshot } = await startWithTui(world, { MEDIAN_DEV_TEST_CRASH_INPUT: 'z' });
    const childPid = snapshot.child.pid!;
    await vi.waitFor(async () => expect(await pane.text()).toContain('median-dev'), { timeout: 15_000, interval: 200 });
    await pane.sendKeys('z');
    await vi.waitFor(async () => expect(await pane.text()).toContain('the terminal UI stopped'), { timeout: 20_000, interval: 200 });
    expect(await pane.text()).toContain(`an input crash injected by MEDIAN_DEV_TEST_CRASH_INPUT`);

    expect((await fetch(`${snapshot.proxyUrl!}/__median-dev/health`)).status).toBe(200);
    await world.emulator.callTool({ tool: 'lookupCustomer', input: { email: 'ada@example.com' } });
    await vi.waitFor(async () => expect((await recorded(world)).some((r) => r.tool === 'lookupCustomer' && r.signature === 'valid')).toBe(true), { timeout: 15_000 });
    await vi.waitFor(async () => expect(await pane.text()).toContain('lookupCustomer'), { timeout: 15_000, interval: 200 });
    expect(isAlive(childPid)).toBe(true);
  }, 90_000);

  it('a daemon that dies of an uncaught error stops its dev server first', async () => {
    const world = await useE2eWorld();
    const daemon = world.start({ env: { MEDIAN_DEV_TEST_CRASH_DAEMON: 'call_deep' } });
    const child = await daemon.waitForEvent((e) => isEvent(e, 'child', { state: 'running' }));
    await daemon.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }));
    const childPid = child.pid as number;
    expect(isAlive(childPid)).toBe(true);
    await sendDeepCall(world, daemon);
    expect(await daemon.exited).toBe(1);
    expect(daemon.stderr()).toContain('crashed');
    await vi.waitFor(() => expect(isAlive(childPid)).toBe(false), { timeout: 10_000, interval: 50 });
    // Nothing answers where the dev server listened: no orphan holds the port.
    await expect(fetch(`http://127.0.0.1:${world.routePort}/api/median`)).rejects.toThrow();
  }, 60_000);
});
