import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TunnelServer } from '../../src/tunnel-server/index.js';
import { eventsOf, isEvent, useE2eWorld, type E2eWorld } from '../helpers/e2e-world.js';
import { useHttpServer, type TestServer } from '../helpers/use-http-server.js';

const PRODUCTION = 'https://acme.example';
const PRODUCTION_TOOLS_URL = `${PRODUCTION}/api/median`;

/**
 * A localtunnel server that lies (self-hosted and compromised, or what a typo
 * in --tunnel-host reaches): it registers the tunnel with the real loopback
 * server, so the client's sockets connect, but answers the registration with
 * `url` set to the organisation's production origin.
 */
async function useLyingTunnelServer(real: TunnelServer, url: string): Promise<TestServer & { registrations: () => number }> {
  let registrations = 0;
  const server = await useHttpServer((req, res) => {
    registrations += 1;
    void fetch(`${real.url}${req.url ?? '/'}`).then(async (answer) => {
      const body = (await answer.json()) as Record<string, unknown>;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...body, url }));
    });
  });
  return { ...server, registrations: () => registrations };
}

/** The organisation's production endpoint, already at Median. */
async function withProductionEndpoint(world: E2eWorld): Promise<string> {
  const endpoint = await world.api.connect(PRODUCTION_TOOLS_URL);
  return endpoint.id;
}

async function fileText(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '');
}

async function expectProductionUntouched(world: E2eWorld, productionId: string): Promise<void> {
  const endpoints = await world.api.listEndpoints();
  expect(endpoints.find((e) => e.id === productionId)?.url).toBe(PRODUCTION_TOOLS_URL);
  const state = await fileText(join(world.dataDir, 'state.json'));
  expect(state).not.toContain(productionId);
  expect(state).not.toContain('acme.example');
  expect(await fileText(world.envFile)).not.toContain('acme.example');
}

describe('a tunnel server that names production', () => {
  it('a registration url outside the server’s domain is tunnel_bad_registration, said once, written nowhere', async () => {
    const world = await useE2eWorld();
    const productionId = await withProductionEndpoint(world);
    const liar = await useLyingTunnelServer(world.tunnelServer, PRODUCTION);
    const cli = world.start({ args: ['--tunnel-host', liar.url] });

    const error = await cli.waitForEvent((e) => isEvent(e, 'error', { code: 'tunnel_bad_registration' }));
    expect(error.message).toEqual(expect.stringContaining(PRODUCTION));
    await cli.waitForEvent((e) => isEvent(e, 'local-only'));
    expect(liar.registrations()).toBe(1);
    expect(eventsOf(cli, 'tunnel', { state: 'open' })).toEqual([]);
    expect(eventsOf(cli, 'tools-url')).toEqual([]);
    expect(eventsOf(cli, 'endpoint')).toEqual([]);
    await expectProductionUntouched(world, productionId);
  });

  it('--tunnel none --public-url <production> stops with production_org and adopts nothing', async () => {
    const world = await useE2eWorld();
    const productionId = await withProductionEndpoint(world);
    const cli = world.start({ args: ['--tunnel', 'none', '--public-url', PRODUCTION, '--allow-production-org'] });

    const error = await cli.waitForEvent((e) => isEvent(e, 'error', { code: 'production_org' }));
    expect(error.message).toEqual(expect.stringContaining(PRODUCTION_TOOLS_URL));
    expect(eventsOf(cli, 'endpoint')).toEqual([]);
    const endpoints = await world.api.listEndpoints();
    expect(endpoints.map((e) => [e.id, e.url])).toEqual([[productionId, PRODUCTION_TOOLS_URL]]);
    const state = JSON.parse(await fileText(join(world.dataDir, 'state.json'))) as Record<string, unknown>;
    expect(state.endpointId).toBeUndefined();
    expect(state.tunnelUrls ?? []).toEqual([]);
  });

  it('a data dir that once recorded production as its own never moves it: the next open connects its own endpoint', async () => {
    const world = await useE2eWorld();
    const productionId = await withProductionEndpoint(world);
    // What a median-dev without these rules left behind after adopting production.
    await mkdir(world.dataDir, { recursive: true, mode: 0o700 });
    await writeFile(
      join(world.dataDir, 'state.json'),
      JSON.stringify({ version: 1, endpointId: productionId, toolsUrl: PRODUCTION_TOOLS_URL, tunnelUrls: [PRODUCTION_TOOLS_URL] }),
      { mode: 0o600 },
    );
    const cli = world.start();

    const synced = await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    expect(synced.id).not.toBe(productionId);
    expect(eventsOf(cli, 'endpoint').filter((e) => e.id === productionId)).toEqual([]);
    const endpoints = await world.api.listEndpoints();
    expect(endpoints.find((e) => e.id === productionId)?.url).toBe(PRODUCTION_TOOLS_URL);
  });
});
