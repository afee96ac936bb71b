import { describe, expect, it } from 'vitest';
import { SYNC_MESSAGES } from '../../../src/median/index.js';
import { manifestOf, useEmulator, useManifestServer, type ManifestServer } from '../../helpers/use-emulator.js';

const PUBLIC_URL = 'https://late.example/api/median';

/** A resolver sending `hostname` to the manifest server's loopback port. */
function resolverTo(route: ManifestServer, hostname: string) {
  const port = Number(new URL(route.origin).port);
  return (name: string) => (name === hostname ? { host: '127.0.0.1', port } : undefined);
}

describe('emulator: host resolvers', () => {
  it('reaches a resolver added after start before the test fallback, and stops when it is removed', async () => {
    const { emulator, client } = await useEmulator();
    const route = await useManifestServer();
    route.serve('/api/median', { body: manifestOf('orderStatus') });

    // No resolver knows the name yet: the offline fallback finds nobody.
    const endpoint = await client.connect(PUBLIC_URL);
    expect(await client.waitForSync(endpoint.id, { intervalMs: 10 })).toMatchObject({
      status: 'failed',
      error: SYNC_MESSAGES.didNotAnswer,
    });
    expect(route.requests).toEqual([]);

    const remove = emulator.addResolver(resolverTo(route, 'late.example'));
    expect(await client.sync()).toMatchObject({ status: 'synced' });
    expect(route.requests.map((r) => [r.method, r.host])).toEqual([['GET', 'late.example']]);

    remove();
    remove(); // idempotent
    expect(await client.sync()).toMatchObject({ status: 'failed', error: SYNC_MESSAGES.didNotAnswer });
    expect(route.requests).toHaveLength(1);
  });

  it('asks options.resolve first, then added resolvers in order, then the fallback', async () => {
    const first = await useManifestServer();
    const second = await useManifestServer();
    const third = await useManifestServer();
    for (const route of [first, second, third]) route.serve('/api/median', { body: manifestOf('orderStatus') });
    const { emulator, client } = await useEmulator({ resolve: resolverTo(first, 'one.example') });
    emulator.addResolver(resolverTo(second, 'one.example')); // shadowed by options.resolve
    emulator.addResolver(resolverTo(second, 'two.example'));
    emulator.addResolver(resolverTo(third, 'two.example')); // shadowed by the earlier one

    const one = await client.connect('https://one.example/api/median');
    expect(await client.waitForSync(one.id, { intervalMs: 10 })).toMatchObject({ status: 'synced' });
    await client.removeEndpoint(one.id); // frees the tool name
    const two = await client.connect('https://two.example/api/median');
    expect(await client.waitForSync(two.id, { intervalMs: 10 })).toMatchObject({ status: 'synced' });

    expect(first.requests.map((r) => r.host)).toEqual(['one.example']);
    expect(second.requests.map((r) => r.host)).toEqual(['two.example']);
    expect(third.requests).toEqual([]);
  });
});
