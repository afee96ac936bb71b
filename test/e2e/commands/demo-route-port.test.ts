import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** The built `median-dev demo --json` in `dataDir`, up to its endpoint's sync and first recorded call. */
async function runDemo(dataDir: string) {
  const cli = spawnCli(['demo', '--json', '--no-tui', '--no-inspector', '--data-dir', dataDir], { env: { MEDIAN_DEV_DEMO_INTERVAL_MS: '300' } });
  useTeardown(cli, (c) => c.stop('SIGINT'));
  await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced', 30_000);
  const call = await cli.waitForEvent((e) => e.event === 'call' && e.status === 200, 30_000);
  const target = cli.events().find((e) => e.event === 'target' && e.how === 'announced');
  const announced = /tools route listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(cli.stderr())?.[1];
  return { cli, call, target, announced };
}

/**
 * The demo's route binds a port of its own (PORT=0) and the daemon reads it
 * from the route's output: a port picked by the demo and bound by the route
 * a moment later was once taken in between under a full suite (any listen
 * or outgoing connection on the machine can take it), the route exited with
 * EADDRINUSE and the demo showed no call.
 */
describe('the demo route’s port', () => {
  it('is the one the route announces, and a taken remembered port is not used again', { timeout: 90_000 }, async () => {
    const dataDir = await useTempDir('median-dev-demo-port-');
    const first = await runDemo(dataDir);
    expect(first.announced).toBeDefined();
    expect(first.target?.url).toBe(first.announced);
    expect(await first.cli.stop('SIGINT')).toBe(0);

    // Another program takes the port the data dir remembers, as a parallel test's server would.
    const connections: Socket[] = [];
    const taker = createServer((socket) => {
      connections.push(socket);
      socket.destroy();
    });
    const port = Number(new URL(first.announced!).port);
    await new Promise<void>((resolve, reject) => {
      taker.once('error', reject);
      taker.listen(port, '127.0.0.1', () => resolve());
    });
    useTeardown(taker, (t) => new Promise<void>((resolve) => t.close(() => resolve())));

    const second = await runDemo(dataDir);
    expect(second.announced).toBeDefined();
    expect(second.announced).not.toBe(first.announced);
    expect(second.target?.url).toBe(second.announced);
    expect(second.call.status).toBe(200);
    expect(second.cli.stderr()).not.toContain('EADDRINUSE');
    expect(connections).toHaveLength(0);
  });
});
