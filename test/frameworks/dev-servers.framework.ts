import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli, type SpawnedCli } from '../helpers/cli-harness.js';
import { childPids, eventsOf, isEvent, useE2eWorld, waitForEventAfter, type E2eWorld } from '../helpers/e2e-world.js';
import { loseHostname } from './lose-hostname.js';
import { FRAMEWORK_APPS, createFrameworkApp, type FrameworkApp } from './framework-apps.js';

/**
 * median-dev with each real framework's dev server, the route copied from
 * examples/frameworks: first sync, calls answered through the tunnel, and
 * a hostname change with `--restart-on-url-change auto`: the route then
 * has the new MEDIAN_TOOLS_URL, and the dev server was left running or
 * restarted as the policy says. Results in test/e2e/.results/frameworks.json.
 */

const RESULTS_FILE = fileURLToPath(new URL('../e2e/.results/frameworks.json', import.meta.url));
/** MEDIAN_DEV_FRAMEWORKS=next,nuxt picks some (by example folder or name); default all. */
const ONLY = process.env.MEDIAN_DEV_FRAMEWORKS?.split(',').map((s) => s.trim().toLowerCase());
const APPS = FRAMEWORK_APPS.filter((app) => !ONLY || ONLY.some((o) => app.example === o || app.name.toLowerCase().includes(o)));

interface FrameworkResult {
  framework: string;
  versions: Record<string, string>;
  installSeconds: number;
  /** How median-dev found the dev server without --target: `announced` (its URL line) or `listening` (the port it opened). */
  targetFound: string;
  recognised: string;
  policy: 'left running' | 'restarted';
  firstSyncSeconds: number;
  healAfterReopenSeconds: number;
  syncedAfterDropSeconds: number;
  childPidKept: boolean;
  /** `target_unreachable` said while the restarted dev server was still starting (10 s without an answer, seen under load). */
  slowStarts: number;
  routePidKept: boolean;
  routeSeesNewUrl: boolean;
}

/** The loopback tunnel server's domain: Vite-based apps are told to allow it, as users allow .loca.lt. */
const TUNNEL_DOMAIN = 'lt.median.test';
const results: FrameworkResult[] = [];
const dirs: string[] = [];

afterAll(async () => {
  if (results.length > 0) {
    // A run of some frameworks (MEDIAN_DEV_FRAMEWORKS) replaces their rows and keeps the others'.
    const earlier = await readFile(RESULTS_FILE, 'utf8').then((text) => (JSON.parse(text) as { results: FrameworkResult[] }).results, () => []);
    const kept = earlier.filter((old) => !results.some((r) => r.framework === old.framework));
    const all = FRAMEWORK_APPS.flatMap((app) => [...results, ...kept].filter((r) => r.framework === app.name));
    await mkdir(dirname(RESULTS_FILE), { recursive: true });
    await writeFile(RESULTS_FILE, `${JSON.stringify({ at: new Date().toISOString(), node: process.version, results: all }, null, 2)}\n`);
  }
  // The installed apps (node_modules, build folders) are large: removed whatever the tests did.
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** `start`'s argv without `--target <url>`. */
function withoutTarget(args: string[]): string[] {
  const at = args.indexOf('--target');
  return at === -1 ? args : [...args.slice(0, at), ...args.slice(at + 2)];
}

/** A signed `routeInfo` call through Median (the emulator) and the tunnel: recorded by the daemon, answered by the route. */
async function routeInfo(world: E2eWorld, cli: SpawnedCli, toolsUrl: string): Promise<{ toolsUrl: string | null; pid: number }> {
  const mark = cli.events().length;
  const call = await world.emulator.callTool({ tool: 'routeInfo', input: {}, endpointUrl: toolsUrl });
  expect(call).toMatchObject({ status: 200, verdict: { kind: 'answered' } });
  expect(await waitForEventAfter(cli, mark, 'call', { toolCallId: call.toolCallId }, 20_000)).toMatchObject({ tool: 'routeInfo', signature: 'valid', verdict: 'answered' });
  return (JSON.parse(call.body!) as { result: { toolsUrl: string | null; pid: number } }).result;
}

async function runFramework(app: FrameworkApp): Promise<FrameworkResult> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), `median-dev-${app.example}-`)));
  dirs.push(dir);
  const world = await useE2eWorld({ projectDir: dir, tunnelDomain: TUNNEL_DOMAIN, emulatorLimits: { syncTimeoutMs: 10_000, callTimeoutMs: 10_000 } });
  const installed = await createFrameworkApp(app, dir, TUNNEL_DOMAIN);
  const startedAt = Date.now();
  // No --target: median-dev finds the dev server from what it announces (or the port it opens).
  const args = withoutTarget(world.startArgs(['--restart-on-url-change', 'auto', ...(app.startArgs?.(dir) ?? [])]));
  const env = { PORT: String(world.routePort), HOST: '127.0.0.1', MEDIAN_API_URL: world.emulator.url, NEXT_TELEMETRY_DISABLED: '1', NUXT_TELEMETRY_DISABLED: '1' };
  const cli = spawnCli([...args, '--', ...app.command(world.routePort)], { cwd: dir, env }); // stopped when the test ends
  const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 170_000);
  expect(synced.error ?? null).toBeNull();
  const toolsUrl = synced.url as string;
  const found = cli.events().find((e) => isEvent(e, 'target') && e.message !== undefined && e.state !== 'finding');
  // The address it announces: Express and Hono print localhost, the others the --host they were given.
  expect(new URL(String(found?.url)).port).toBe(String(world.routePort));
  expect(['announced', 'listening']).toContain(found?.how);
  const note = eventsOf(cli, 'log').find((e) => String(e.message).startsWith(`${app.recognisedAs} recognised:`));
  expect(note, `the note that names ${app.recognisedAs}`).toBeDefined();

  const before = await routeInfo(world, cli, toolsUrl);
  expect(before.toolsUrl).toBe(toolsUrl);
  const order = await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' }, endpointUrl: toolsUrl });
  expect(order).toMatchObject({ status: 200, verdict: { kind: 'answered' } });

  const { newUrl, droppedAt, openAt, syncedAt: healedAt } = await loseHostname(world, cli, toolsUrl, 120_000);
  const after = await routeInfo(world, cli, newUrl);

  const pids = childPids(cli);
  const result: FrameworkResult = {
    framework: app.name,
    versions: installed.versions,
    installSeconds: installed.installSeconds,
    targetFound: String(found!.how),
    recognised: app.recognisedAs,
    policy: app.restartsOnUrlChange ? 'restarted' : 'left running',
    firstSyncSeconds: (Date.parse(synced.at as string) - startedAt) / 1000,
    healAfterReopenSeconds: (healedAt - openAt) / 1000,
    syncedAfterDropSeconds: (healedAt - droppedAt) / 1000,
    childPidKept: pids.length === 1,
    routePidKept: after.pid === before.pid,
    routeSeesNewUrl: after.toolsUrl === newUrl,
    slowStarts: eventsOf(cli, 'error', { code: 'target_unreachable' }).length,
  };
  results.push(result);
  console.log(`${app.name}: ${JSON.stringify(result)}`);
  // A dev server that takes over 10 s to start again is said to be unreachable meanwhile: no failure, counted above.
  expect(eventsOf(cli, 'error').filter((e) => e.code !== 'target_unreachable')).toEqual([]);
  return result;
}

describe.each(APPS)('median-dev start with a real $name', (app) => {
  it('first sync, calls answered, and after a hostname change the route has the new URL', async () => {
    const result = await runFramework(app);
    expect(result.routeSeesNewUrl).toBe(true);
    expect(result.childPidKept).toBe(!app.restartsOnUrlChange);
    if (!app.restartsOnUrlChange) expect(result.routePidKept).toBe(true);
  });
});
