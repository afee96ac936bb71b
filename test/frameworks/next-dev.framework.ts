import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpawnedCli } from '../helpers/cli-harness.js';
import { childPids, eventsOf, isEvent, useE2eWorld, waitForEventAfter, type E2eWorld } from '../helpers/e2e-world.js';
import { loseHostname } from './lose-hostname.js';
import { createNextApp, forgetProject } from './next-app.js';

/**
 * median-dev with a real `next dev` (Next.js 16, App Router) as its dev
 * server: installed from the registry into a temporary folder, the route in
 * app/api/median/route.js. First sync, calls recorded, and a hostname change
 * with `--restart-on-url-change` on auto (the default) and on always.
 */

const RESULTS_FILE = fileURLToPath(new URL('../e2e/.results/frameworks-next.json', import.meta.url));
/** Issue goal: with next dev, healed ≤ 1 s after the tunnel reopens, same dev server pid. */
const HEAL_AFTER_REOPEN_TARGET_S = 1;

interface PolicyResult {
  policy: 'auto' | 'always';
  firstSyncSeconds: number;
  tunnelDownSeconds: number | null;
  tunnelOpenSeconds: number;
  syncedSeconds: number;
  healAfterReopenSeconds: number;
  samePid: boolean;
  routeSeesNewUrl: boolean;
}

const results: { next?: string; installSeconds?: number; policies: PolicyResult[] } = { policies: [] };
let appDir: string;

beforeAll(async () => {
  appDir = await realpath(await mkdtemp(join(tmpdir(), 'median-dev-next-')));
  const installed = await createNextApp(appDir);
  results.next = installed.version;
  results.installSeconds = installed.installSeconds;
  console.log(`next ${installed.version} installed in ${installed.installSeconds.toFixed(1)} s`);
});

afterAll(async () => {
  if (results.policies.length === 0) return;
  await mkdir(dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify({ ...results, at: new Date().toISOString() }, null, 2)}\n`);
});

/** `median-dev start --json -- npm run dev -- --port <p> --hostname 127.0.0.1` in the app folder. */
async function startNext(world: E2eWorld, args: string[]): Promise<{ cli: SpawnedCli; toolsUrl: string; startedAt: number; syncedAt: number }> {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const startedAt = Date.now();
  const cli = world.start({
    args,
    childCommand: [npm, 'run', 'dev', '--', '--port', String(world.routePort), '--hostname', '127.0.0.1'],
    env: { NEXT_TELEMETRY_DISABLED: '1' },
  });
  const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 120_000);
  expect(synced.error ?? null).toBeNull();
  return { cli, toolsUrl: synced.url as string, startedAt, syncedAt: Date.parse(synced.at as string) };
}

/** A signed `whereAmI` call through Median (the emulator) and the tunnel: recorded by the daemon, answered by the route. */
async function whereAmI(world: E2eWorld, cli: SpawnedCli, toolsUrl: string): Promise<{ toolsUrl: string; toolsUrlAtLoad: string; pid: number }> {
  const mark = cli.events().length;
  const call = await world.emulator.callTool({ tool: 'whereAmI', input: {}, endpointUrl: toolsUrl });
  expect(call).toMatchObject({ status: 200, verdict: { kind: 'answered' } });
  expect(await waitForEventAfter(cli, mark, 'call', { toolCallId: call.toolCallId }, 20_000)).toMatchObject({ tool: 'whereAmI', signature: 'valid', verdict: 'answered' });
  return (JSON.parse(call.body!) as { result: { toolsUrl: string; toolsUrlAtLoad: string; pid: number } }).result;
}

async function hostnameChange(world: E2eWorld, policy: 'auto' | 'always'): Promise<PolicyResult> {
  await forgetProject(appDir);
  const { cli, toolsUrl, startedAt, syncedAt } = await startNext(world, ['--restart-on-url-change', policy]);
  const before = await whereAmI(world, cli, toolsUrl);
  expect(before).toMatchObject({ toolsUrl, toolsUrlAtLoad: toolsUrl });
  const order = await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' }, endpointUrl: toolsUrl });
  expect(order).toMatchObject({ status: 200, verdict: { kind: 'answered' } });

  const { newUrl, droppedAt, openAt, downAt, syncedAt: healedAt } = await loseHostname(world, cli, toolsUrl, 60_000);

  const now = await whereAmI(world, cli, newUrl);
  const result: PolicyResult = {
    policy,
    firstSyncSeconds: (syncedAt - startedAt) / 1000,
    tunnelDownSeconds: downAt === null ? null : (downAt - droppedAt) / 1000,
    tunnelOpenSeconds: (openAt - droppedAt) / 1000,
    syncedSeconds: (healedAt - droppedAt) / 1000,
    healAfterReopenSeconds: (healedAt - openAt) / 1000,
    samePid: now.pid === before.pid,
    // At request time, and at module scope: next dev evaluates the route module again after an env reload.
    routeSeesNewUrl: now.toolsUrl === newUrl && now.toolsUrlAtLoad === newUrl,
  };
  results.policies.push(result);
  console.log(`next dev, --restart-on-url-change ${policy}: ${JSON.stringify(result)}`);
  expect(eventsOf(cli, 'error')).toEqual([]);
  expect(result.routeSeesNewUrl).toBe(true);
  return Object.assign(result, { childStarts: childPids(cli).length });
}

describe('median-dev start with a real next dev', () => {
  it('auto: first sync, calls recorded, a hostname change heals in the same process ≤ 1 s after the tunnel reopens', async () => {
    const world = await useE2eWorld({ projectDir: appDir });
    const result = (await hostnameChange(world, 'auto')) as PolicyResult & { childStarts: number };
    expect(result.samePid).toBe(true);
    expect(result.childStarts).toBe(1);
    expect(result.healAfterReopenSeconds).toBeLessThanOrEqual(HEAL_AFTER_REOPEN_TARGET_S);
  });

  it('always: the hostname change restarts next dev, whose route then has the new URL', async () => {
    const world = await useE2eWorld({ projectDir: appDir });
    const result = (await hostnameChange(world, 'always')) as PolicyResult & { childStarts: number };
    expect(result.samePid).toBe(false);
    expect(result.childStarts).toBe(2);
  });
});

// The installed app (node_modules, .next) is large: removed whatever the tests did.
afterAll(async () => {
  if (appDir) await rm(appDir, { recursive: true, force: true });
});
