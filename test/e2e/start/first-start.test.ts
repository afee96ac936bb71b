import { chmod, readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_TOOLS, eventsOf, useE2eWorld } from '../../helpers/e2e-world.js';

describe('median-dev start: the first start', () => {
  it('opens the proxy and the tunnel, writes the tools URL, connects and syncs one endpoint', async () => {
    const world = await useE2eWorld();
    const cli = world.start();

    const proxy = await cli.waitForEvent((e) => e.event === 'proxy');
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const tunnel = await cli.waitForEvent((e) => e.event === 'tunnel' && e.state === 'open');
    expect(new URL(tunnel.url as string).hostname.endsWith(`.${world.tunnelServer.domain}`)).toBe(true);
    const toolsUrl = `${tunnel.url as string}/api/median`;
    expect(await cli.waitForEvent((e) => e.event === 'tools-url')).toMatchObject({ url: toolsUrl, envFile: world.envFile });
    const connected = await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'connected');
    const synced = await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced');
    expect(connected).toMatchObject({ url: toolsUrl });
    expect(synced).toMatchObject({ id: connected.id, url: toolsUrl });

    const endpoints = await world.api.listEndpoints();
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]).toMatchObject({ id: connected.id, url: toolsUrl, status: 'synced', error: null });
    expect(endpoints[0]!.tools.map((t) => t.name).sort()).toEqual([...EXAMPLE_TOOLS].sort());
    // The route was opened once, after the dev server answered: no failed connect in the recordings.
    expect(eventsOf(cli, 'call', { kind: 'connect' })).toEqual([expect.objectContaining({ status: 200, verdict: 'answered' })]);
    expect(eventsOf(cli, 'error')).toEqual([]);
  });

  it('rewrites only the MEDIAN_TOOLS_URL line of the env file, keeping every other byte and its mode', async () => {
    const before = (key: string) =>
      [
        '# shop settings\r\n',
        `export MEDIAN_KEY=${key}\r\n`,
        'DATABASE_URL="postgres://localhost/shop" # local db\r\n',
        '\r\n',
        'export MEDIAN_TOOLS_URL=https://old-name.loca.lt/api/median # written by median-dev\r\n',
        "GREETING='hello # not a comment'\r\n",
        'LAST=1',
      ].join('');
    const world = await useE2eWorld({ envFileText: before });
    await chmod(world.envFile, 0o640);
    const cli = world.start();

    const { url } = await cli.waitForEvent((e) => e.event === 'tools-url');
    await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced');
    const expected = before(world.emulator.key).replace(
      'https://old-name.loca.lt/api/median',
      url as string,
    );
    expect(await readFile(world.envFile, 'utf8')).toBe(expected);
    expect((await stat(world.envFile)).mode & 0o777).toBe(0o640);
  });

  it('creates a missing env file (0600) holding only MEDIAN_TOOLS_URL, with the key from the environment', async () => {
    const world = await useE2eWorld({ envFileText: null });
    // Node 20 itself reads a script's `--env-file <path>` argument and exits 9 when the file is
    // missing (nodejs/node#54232), so this start relies on the default, `.env.local` in the project.
    const cli = world.start({ env: { MEDIAN_KEY: world.emulator.key }, envFileFlag: false });
    const { url } = await cli.waitForEvent((e) => e.event === 'tools-url');
    await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced');
    expect(await readFile(world.envFile, 'utf8')).toBe(`MEDIAN_TOOLS_URL=${url as string}\n`);
    expect((await stat(world.envFile)).mode & 0o777).toBe(0o600);
  });
});
