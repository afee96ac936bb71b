import { describe, expect, it } from 'vitest';
import { CONNECT_MESSAGES, SYNC_MESSAGES, SYNC_REQUEST_MESSAGES } from '../../../src/median/index.js';
import { manifestOf, useEmulator, useManifestServer } from '../../helpers/use-emulator.js';

/** The error a promise rejects with, for asserting its code and details. */
async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a rejection');
}

/** A JSON body as an error envelope. */
async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

describe('emulator API: key errors (over HTTP, through the API client)', () => {
  it.each([
    ['another Median key', 'median_key_' + 'Z'.repeat(32), 'invalid_api_key', 401, CONNECT_MESSAGES.invalidApiKey],
    ['a legacy secret key', 'sk_live_' + 'a'.repeat(24), 'legacy_api_key', 400, CONNECT_MESSAGES.legacyApiKey],
    ['a legacy publishable key', 'pk_live_' + 'a'.repeat(24), 'legacy_api_key', 400, CONNECT_MESSAGES.legacyApiKey],
    ['no key at all', '', 'missing_median_key', 400, CONNECT_MESSAGES.missingMedianKey],
  ])('%s → %s %s', async (_name, key, code, status, message) => {
    const { clientWithKey } = await useEmulator();
    const client = clientWithKey(key);
    const calls = [() => client.listEndpoints(), () => client.connect('https://shop.example/api/median'), () => client.sync()];
    for (const call of calls) {
      const error = await rejection(call());
      expect(error).toMatchObject({ code, message, details: { status } });
    }
  });

  it('answers 401 invalid_api_key for another scheme and 400 missing_median_key without the header', async () => {
    const { emulator } = await useEmulator();
    const basic = await fetch(`${emulator.url}/v1/tool-endpoints`, { headers: { authorization: `Basic ${emulator.key}` } });
    expect(basic.status).toBe(401);
    expect((await errorOf(basic)).code).toBe('invalid_api_key');
    const none = await fetch(`${emulator.url}/v1/tool-endpoints`);
    expect(none.status).toBe(400);
    expect(await errorOf(none)).toEqual({ code: 'missing_median_key', message: CONNECT_MESSAGES.missingMedianKey });
  });

  it('answers unknown routes and methods with JSON errors', async () => {
    const { emulator } = await useEmulator();
    const auth = { authorization: `Bearer ${emulator.key}` };
    const unknown = await fetch(`${emulator.url}/v1/nothing-here`, { headers: auth });
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe('not_found');
    const outside = await fetch(`${emulator.url}/`, { headers: auth });
    expect(outside.status).toBe(404);
    expect((await errorOf(outside)).code).toBe('not_found');
    const wrongMethod = await fetch(`${emulator.url}/v1/tool-endpoints`, { method: 'PUT', headers: auth });
    expect(wrongMethod.status).toBe(405);
    expect((await errorOf(wrongMethod)).code).toBe('method_not_allowed');
    const badJson = await fetch(`${emulator.url}/v1/tool-endpoints`, { method: 'POST', headers: auth, body: '{nope' });
    expect(badJson.status).toBe(400);
    expect((await errorOf(badJson)).code).toBe('invalid_body');
  });
});

describe('emulator API: invalid_url', () => {
  it.each([
    ['http on a public host', 'http://shop.example/api/median', CONNECT_MESSAGES.urlNotHttps],
    ['another scheme', 'ftp://shop.example/api/median', CONNECT_MESSAGES.urlNotHttps],
    ['a private IPv4 address', 'https://10.1.2.3/api/median', CONNECT_MESSAGES.urlPrivate],
    ['a 192.168 address', 'https://192.168.0.10/api/median', CONNECT_MESSAGES.urlPrivate],
    ['a 172.16/12 address', 'https://172.20.0.1/api/median', CONNECT_MESSAGES.urlPrivate],
    ['a unique-local IPv6 address', 'https://[fd00::1]/api/median', CONNECT_MESSAGES.urlPrivate],
    ['a URL over 512 characters', `https://shop.example/${'a'.repeat(500)}`, CONNECT_MESSAGES.urlTooLong],
    ['not a URL', 'not a url', CONNECT_MESSAGES.urlInvalid],
    ['an empty string', '', CONNECT_MESSAGES.urlInvalid],
  ])('refuses %s', async (_name, url, message) => {
    const { client, emulator } = await useEmulator();
    const error = await rejection(client.connect(url));
    expect(error).toMatchObject({ code: 'invalid_url', message, details: { status: 400 } });
    expect(emulator.endpoints()).toEqual([]);
  });

  it('accepts exactly 512 characters, and http on localhost (unlike the cloud)', async () => {
    const { client } = await useEmulator();
    const long = `https://shop.example/${'a'.repeat(512 - 'https://shop.example/'.length)}`;
    expect(long).toHaveLength(512);
    await expect(client.connect(long)).resolves.toMatchObject({ url: long });
    await expect(client.connect('http://localhost:3000/api/median')).resolves.toMatchObject({ status: 'pending' });
    await expect(client.connect('http://127.0.0.1:3000/api/median')).resolves.toMatchObject({ status: 'pending' });
  });
});

describe('emulator API: endpoint limits and duplicates', () => {
  it('refuses the 11th endpoint with too_many_tool_endpoints', async () => {
    const { client } = await useEmulator({ limits: { connectRate: { perHour: 60, burst: 20 } } });
    const route = await useManifestServer();
    for (let i = 0; i < 10; i++) await client.connect(route.url(`/route-${i}`));
    const error = await rejection(client.connect(route.url('/route-10')));
    expect(error).toMatchObject({ code: 'too_many_tool_endpoints', message: CONNECT_MESSAGES.tooManyEndpoints, details: { status: 400 } });
    expect((await client.listEndpoints()).length).toBe(10);
  });

  it('refuses a Change endpoint to a URL another endpoint has with duplicate_endpoint', async () => {
    const { client } = await useEmulator();
    const route = await useManifestServer();
    const a = await client.connect(route.url('/a'));
    await client.connect(route.url('/b'));
    const error = await rejection(client.changeEndpoint(a.id, route.url('/b')));
    expect(error).toMatchObject({ code: 'duplicate_endpoint', message: CONNECT_MESSAGES.duplicateEndpoint, details: { status: 400 } });
    const invalid = await rejection(client.changeEndpoint(a.id, 'http://shop.example/x'));
    expect(invalid).toMatchObject({ code: 'invalid_url', message: CONNECT_MESSAGES.urlNotHttps });
  });

  it('reconnects a URL that is already connected: same id, synced again', async () => {
    const { client } = await useEmulator();
    const route = await useManifestServer();
    route.serve('/api/median', { body: manifestOf('orderStatus') });
    const first = await client.connect(route.url('/api/median'));
    await client.waitForSync(first.id);
    const again = await client.connect(route.url('/api/median'));
    expect(again.id).toBe(first.id);
    expect(await client.waitForSync(again.id)).toMatchObject({ status: 'synced' });
    expect((await client.listEndpoints()).length).toBe(1);
  });

  it('limits connects with 429 rate_limited and Retry-After', async () => {
    const { client } = await useEmulator({ limits: { connectRate: { perHour: 60, burst: 2 } } });
    await client.connect('https://a.example/api/median');
    await client.connect('https://b.example/api/median');
    const error = await rejection(client.connect('https://c.example/api/median'));
    expect(error).toMatchObject({ code: 'rate_limited', message: CONNECT_MESSAGES.rateLimited, details: { status: 429 } });
    expect(error.details?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(error.details?.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it('shows rate-limited manual syncs as a failed sync that keeps the last good tool set', async () => {
    let clock = 1_750_000_000_000;
    const { client } = await useEmulator({ now: () => clock, limits: { syncRate: { perHour: 60, burst: 1 } } });
    const route = await useManifestServer();
    route.serve('/api/median', { body: manifestOf('orderStatus') });
    const endpoint = await client.connect(route.url('/api/median'));
    await client.waitForSync(endpoint.id);
    expect(await client.sync()).toMatchObject({ status: 'synced' });
    const limited = await client.sync();
    expect(limited).toMatchObject({ status: 'failed', error: SYNC_MESSAGES.rateLimited, tools: [{ name: 'orderStatus', enabled: true }] });
    clock += 60_000; // one token back after a minute
    expect(await client.sync()).toMatchObject({ status: 'synced', error: null });
  });
});

describe('emulator API: sync request errors', () => {
  it('no_endpoint, endpoint_required, and endpoint_not_found for ?url=', async () => {
    const { client } = await useEmulator();
    expect(await rejection(client.sync())).toMatchObject({
      code: 'no_endpoint',
      message: SYNC_REQUEST_MESSAGES.noEndpoint,
      details: { status: 400 },
    });
    await client.connect('https://a.example/api/median');
    await client.connect('https://b.example/api/median');
    expect(await rejection(client.sync())).toMatchObject({
      code: 'endpoint_required',
      message: SYNC_REQUEST_MESSAGES.endpointRequired,
      details: { status: 400 },
    });
    const missing = 'https://c.example/api/median';
    expect(await rejection(client.sync(missing))).toMatchObject({
      code: 'endpoint_not_found',
      message: `No tool endpoint is connected at ${missing}. Run GET /v1/tool-endpoints to see the ones that are.`,
      details: { status: 404 },
    });
  });

  it('endpoint_not_found "no longer available" for an id that is gone (Change, Remove, Sync, switches)', async () => {
    const { client, emulator } = await useEmulator();
    const endpoint = await client.connect('https://a.example/api/median');
    expect(await client.removeEndpoint(endpoint.id)).toEqual({ removed: endpoint.id });
    const gone = {
      code: 'endpoint_not_found',
      message: 'This tool endpoint is no longer available. Refresh the page.',
      details: { status: 404 },
    };
    expect(await rejection(client.changeEndpoint(endpoint.id, 'https://b.example/api/median'))).toMatchObject(gone);
    expect(await rejection(client.removeEndpoint(endpoint.id))).toMatchObject(gone);
    expect(await rejection(client.setToolEnabled(endpoint.id, 'orderStatus', false))).toMatchObject(gone);
    expect(await rejection(client.syncById(endpoint.id))).toMatchObject(gone);
    expect(emulator.endpoints()).toEqual([]);
  });
});
