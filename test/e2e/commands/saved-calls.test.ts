import { refusedOrigin } from '../../helpers/refused-port.js';
import { spawn } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { EXAMPLE_ROUTE, freePort, useTempDir } from '../../helpers/e2e-world.js';
import { checkJunitShape } from '../../helpers/junit-shape.js';
import { KEY } from '../../helpers/make-record.js';
import { useDemo } from '../../helpers/use-demo.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const DIST_EXAMPLES = pathToFileURL(join(EXAMPLE_ROUTE, '..')).href;

/**
 * A copy of the example route with one behaviour changed: orderStatus gives
 * another eta, and chargeCard charges instead of throwing. It writes its pid
 * beside itself, so the test can see it was stopped after the run.
 */
const CHANGED_ROUTE = `
import { writeFileSync } from 'node:fs';
import { createDemoTools } from '${DIST_EXAMPLES}/demo-tools.js';
import { startToolRouteServer } from '${DIST_EXAMPLES}/start-tool-route-server.js';
const tools = createDemoTools().map((tool) => {
  if (tool.name === 'orderStatus') return { ...tool, execute: ({ orderNumber }) => ({ orderNumber, status: 'shipped', eta: 'next week' }) };
  if (tool.name === 'chargeCard') return { ...tool, execute: ({ amount }) => ({ charged: amount }) };
  return tool;
});
writeFileSync(new URL('./route.pid', import.meta.url), String(process.pid));
const server = await startToolRouteServer({ port: Number(process.env.PORT), key: process.env.MEDIAN_KEY, tools });
process.once('SIGTERM', () => void server.close());
process.once('SIGINT', () => void server.close());
`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function run(argv: string[], cwd: string, env: Record<string, string> = {}) {
  const cli = spawnCli(argv, { cwd, env });
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

describe('saved calls as regression tests (calls save, test)', () => {
  it('records, saves, passes; a changed route fails with the diff and exit 1; --update passes; --junit; the -- dev server is stopped', { timeout: 120_000 }, async () => {
    const project = await useTempDir('median-dev-saved-');
    await writeFile(join(project, '.env.local'), `MEDIAN_KEY=${KEY}\n`);
    const port = await freePort();
    const target = `http://127.0.0.1:${port}`;
    // The example route, as the developer's dev server, holding the project's key.
    const route = spawn(process.execPath, [EXAMPLE_ROUTE], { env: { ...process.env, PORT: String(port), MEDIAN_KEY: KEY }, stdio: 'ignore' });
    useTeardown(route, (r) => r.kill('SIGKILL'));
    await vi.waitFor(async () => expect((await fetch(`${target}/api/median`)).status).toBe(401), { timeout: 15_000, interval: 100 });

    // Calls are recorded as they reach the route (a one-shot recording proxy, as without a daemon).
    for (const [tool, input] of [
      ['orderStatus', '{"orderNumber":"A1001"}'],
      ['chargeCard', '{"orderNumber":"A1001","amount":5}'],
      ['lookupCustomer', '{}'],
    ] as const) {
      const call = await run(['call', tool, '--input', input, '--target', target], project);
      expect(call.code, call.stderr).toBe(0);
    }
    const listed = await run(['calls', '--json', '--target', target], project);
    const ids = (JSON.parse(listed.stdout) as Array<{ toolCallId: string }>).map((r) => r.toolCallId);
    expect(ids).toHaveLength(3);
    const save = await run(['calls', 'save', ...ids, '--target', target], project);
    expect(save.code, save.stderr).toBe(0);
    const files = (await readdir(join(project, 'median-calls'))).sort();
    expect(files).toHaveLength(3);
    const texts = await Promise.all(files.map((f) => readFile(join(project, 'median-calls', f), 'utf8')));
    for (const text of texts) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain('median-signature');
    }

    // The route as it is: every saved call passes (and the first run records the noise it found).
    const passing = await run(['test', '--target', target], project);
    expect(passing.code, passing.stdout + passing.stderr).toBe(0);
    expect(passing.stdout).toContain('3 passed');
    expect(JSON.parse(await readFile(join(project, 'median-calls', files[0]!), 'utf8')).ignore).toEqual([]);
    route.kill('SIGTERM');

    // The changed copy, started by the test run itself with a throwaway key: fails, in the agent's terms, with the diff.
    await writeFile(join(project, 'changed-route.mjs'), CHANGED_ROUTE);
    const env = { PORT: String(port) };
    const failing = await run(['test', '--target', target, '--junit', 'report.xml', '--', process.execPath, 'changed-route.mjs'], project, env);
    expect(failing.code, failing.stdout + failing.stderr).toBe(1);
    expect(failing.stdout).toContain('was threw, now answered: {"charged":5}');
    expect(failing.stdout).toMatch(/^ *- {5}"eta": "delivered",$/m);
    expect(failing.stdout).toMatch(/^ *\+ {5}"eta": "next week"/m);
    expect(failing.stdout).toContain('1 passed, 2 failed');
    const pid = Number(await readFile(join(project, 'route.pid'), 'utf8'));
    expect(isAlive(pid)).toBe(false);

    const junit = checkJunitShape(await readFile(join(project, 'report.xml'), 'utf8'));
    expect(junit.problems).toEqual([]);
    expect(junit.counts).toEqual({ tests: 3, failures: 2 });
    expect(junit.cases.find((c) => c.classname.endsWith('.chargeCard'))?.failure?.message).toBe('was threw, now answered: {"charged":5}');

    // --update takes the new answers; the next run passes.
    const updated = await run(['test', '--target', target, '--update', '--', process.execPath, 'changed-route.mjs'], project, env);
    expect(updated.code, updated.stdout + updated.stderr).toBe(0);
    expect(updated.stdout).toContain('2 updated');
    const again = await run(['test', '--target', target, '--json', '--', process.execPath, 'changed-route.mjs'], project, env);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ passed: 3, failed: 0, updated: 0 });
  });

  it('saves a call the demo’s agent made (through tunnel and daemon) and passes it against the demo’s route', { timeout: 90_000 }, async () => {
    const demo = await useDemo();
    const call = await demo.cli.waitForEvent((e) => e.event === 'call' && e.tool === 'orderStatus' && e.verdict === 'answered', 60_000);
    // From a second terminal, as the demo prints: the demo's data dir and env file.
    const flags = ['--data-dir', demo.dataDir, '--env', join(demo.dataDir, 'demo.env')];
    const project = join(demo.dataDir, 'my-shop');
    const save = await run(['calls', 'save', String(call.toolCallId), '--as', 'demo-order', ...flags], project);
    expect(save.code, save.stderr).toBe(0);
    const saved = JSON.parse(await readFile(join(project, 'median-calls', 'demo-order.json'), 'utf8')) as { call: { tool: string }; expect: { verdict: string } };
    expect(saved).toMatchObject({ call: { tool: 'orderStatus' }, expect: { verdict: 'answered' } });
    // The target and route the demo's start used; the demo's key signs.
    const tested = await run(['test', ...flags], project);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toContain('1 passed');
  });

  it('refuses a production target, and says so when nothing answers', { timeout: 30_000 }, async () => {
    const project = await useTempDir('median-dev-saved-');
    await writeFile(join(project, '.env.local'), `MEDIAN_KEY=${KEY}\n`);
    const production = await run(['test', '--target', 'https://acme.example'], project);
    expect(production.code).toBe(1);
    expect(production.stderr).toContain('[production_target]');
    const none = await run(['test', '--target', await refusedOrigin()], project);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('[no_saved_calls]');
  });
});
