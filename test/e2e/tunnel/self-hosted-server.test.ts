import { describe, expect, it } from 'vitest';
import { eventsOf, isEvent, useE2eWorld } from '../../helpers/e2e-world.js';
import { useTunnelServer } from '../../helpers/use-tunnel-server.js';

/**
 * A team's own localtunnel-server reached by its IP address: the server names
 * tunnels after the Host it was reached by (`https://<id>.127.0.0.1:<port>`,
 * as the real one does), which nobody can reach. `start` says so once, with
 * the fix, and does not ask again in a loop; the rest of the daemon runs on.
 */
describe('a self-hosted tunnel server reached by its IP address', () => {
  it('one tunnel_unusable_url error naming --tunnel-host https://<its domain>, one registration, the daemon still up', async () => {
    const world = await useE2eWorld();
    const selfHosted = await useTunnelServer({ publicUrlFrom: 'host-header' });
    const cli = world.start({ args: ['--tunnel-host', selfHosted.url] });
    const error = await cli.waitForEvent((e) => isEvent(e, 'error', { code: 'tunnel_unusable_url' }));
    expect(error.hint).toEqual(expect.stringContaining('--tunnel-host https://<its domain>'));
    expect(error.message).toEqual(expect.stringContaining(`127.0.0.1:${selfHosted.port}`));

    // The keeper's own word that it stopped, said in the branch that ends its open loop.
    expect(eventsOf(cli, 'tunnel', { state: 'down' }).map((e) => e.reason)).toEqual([expect.stringMatching(/\(not retrying\)$/)]);
    expect(await cli.waitForEvent((e) => isEvent(e, 'local-only'))).toMatchObject({ message: expect.stringContaining('will not open') });
    // A fixed window on purpose: a retry that does not come has no event, and the daemon's clock is not the
    // test's. Its first retry would come ≤ 1 s after the failure (the backoff's 1 s base, jittered down), and
    // without that one there is no later one: 1.5 s covers it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(selfHosted.stats().registrations).toBe(1);
    expect(eventsOf(cli, 'error', { code: 'tunnel_unusable_url' })).toHaveLength(1);
    expect(eventsOf(cli, 'tunnel', { state: 'open' })).toEqual([]);
    expect(cli.child.exitCode).toBeNull();
    const proxy = eventsOf(cli, 'proxy')[0];
    expect((await fetch(`${proxy?.url as string}/__median-dev/health`)).status).toBe(200);
  });
});
