import { describe, expect, it } from 'vitest';
import { deriveToolSecret, RESERVED_TOOL_NAMES, SYNC_MESSAGES, verifySignature } from '../../../src/median/index.js';
import { manifestOf, useEmulator, useManifestServer, type ServedAnswer } from '../../helpers/use-emulator.js';

const PATH = '/api/median';
const RESERVED = RESERVED_TOOL_NAMES[0] ?? 'handOff';
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `The ${name} tool.`,
  risk: 'low',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  ...extra,
});

/** Connects an endpoint serving `answer` and waits for its first sync. */
async function syncOnce(answer: ServedAnswer, limits = {}) {
  const { client, emulator } = await useEmulator({ limits });
  const route = await useManifestServer();
  route.serve(PATH, answer);
  const connected = await client.connect(route.url(PATH));
  expect(connected.status).toBe('pending');
  return { endpoint: await client.waitForSync(connected.id, { intervalMs: 10 }), client, emulator, route };
}

describe('emulator sync: a signed GET of the endpoint URL', () => {
  it('signs the GET with the key-derived secret and syncs every tool, switched on', async () => {
    const { endpoint, emulator, route } = await syncOnce({ body: manifestOf('orderStatus', 'cancelOrder') });
    expect(endpoint).toMatchObject({
      status: 'synced',
      error: null,
      tools: [
        { name: 'orderStatus', enabled: true },
        { name: 'cancelOrder', enabled: true },
      ],
    });
    expect(endpoint.syncedAt).not.toBeNull();
    const read = route.requests.find((r) => r.method === 'GET' && r.path === PATH);
    expect(read?.body).toBe('');
    expect(verifySignature(read?.signature, '', deriveToolSecret(emulator.key))).toBe('valid');
  });

  const big = 'x'.repeat(500 * 1024 + 10);
  it.each<[string, ServedAnswer, string]>([
    ['a 401', { status: 401, body: { error: { code: 'invalid_signature', message: 'nope' } } }, SYNC_MESSAGES.refusedSignature],
    ['a 404', { status: 404, body: { error: { code: 'not_found', message: 'nope' } } }, 'The endpoint answered 404.'],
    ['a 500', { status: 500, body: 'oops' }, 'The endpoint answered 500.'],
    ['a page', { body: '<html>hello</html>', headers: { 'content-type': 'text/html' } }, SYNC_MESSAGES.notJson],
    [
      'a redirect to a public https URL',
      { status: 308, headers: { location: 'https://www.shop.example/api/median' } },
      'The endpoint redirected to https://www.shop.example/api/median, which syncs never follow. Point it there instead.',
    ],
    ['a redirect to a login page on http', { status: 302, headers: { location: 'http://login.example/' } }, SYNC_MESSAGES.redirected],
    ['a manifest over 500 KB', { body: { version: 1, tools: [], padding: big } }, SYNC_MESSAGES.tooLarge],
    [
      'version 2',
      { body: { version: 2, tools: [] } },
      'The manifest version is 2, and this backend speaks version 1. Update @mediansh/agent-tools or Median, whichever is behind.',
    ],
    [
      'a reserved name',
      { body: { version: 1, tools: [tool(RESERVED)] } },
      `tools[0].name "${RESERVED}" is one of the agent’s own tools. Pick another name.`,
    ],
    [
      'a long description',
      { body: { version: 1, tools: [tool('a', { description: 'd'.repeat(501) })] } },
      'tools[0].description is over 500 characters.',
    ],
    [
      '21 fields',
      {
        body: {
          version: 1,
          tools: [
            tool('a', {
              inputSchema: {
                type: 'object',
                properties: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, { type: 'string' }])),
                additionalProperties: false,
              },
            }),
          ],
        },
      },
      'tools[0].inputSchema has 21 fields, and the most a tool can take is 20.',
    ],
    [
      'a long schema',
      {
        body: {
          version: 1,
          tools: [
            tool('a', {
              inputSchema: {
                type: 'object',
                properties: { f: { type: 'string', description: 'y'.repeat(8000) } },
                additionalProperties: false,
              },
            }),
          ],
        },
      },
      'tools[0].inputSchema is over 8000 characters.',
    ],
    [
      'open additionalProperties',
      { body: { version: 1, tools: [tool('a'), tool('b'), tool('c', { inputSchema: { type: 'object', properties: {} } })] } },
      'tools[2].inputSchema.additionalProperties has to be false.',
    ],
    [
      '21 tools on one endpoint',
      { body: { version: 1, tools: Array.from({ length: 21 }, (_, i) => tool(`t${i}`)) } },
      'These endpoints would declare 21 tools together, and the organization limit is 20.',
    ],
  ])('fails on %s with the docs message', async (_name, answer, message) => {
    const { endpoint } = await syncOnce(answer);
    expect(endpoint).toMatchObject({ status: 'failed', error: message, tools: [] });
  });

  it('fails with "did not answer" when the endpoint is silent past the sync limit', async () => {
    const { endpoint } = await syncOnce({ body: manifestOf('a'), delayMs: 2_000 }, { syncTimeoutMs: 150 });
    expect(endpoint).toMatchObject({ status: 'failed', error: SYNC_MESSAGES.didNotAnswer });
  });

  it('fails with "did not answer" when nothing listens at the URL', async () => {
    const { client } = await useEmulator();
    const connected = await client.connect('https://gone.example/api/median');
    expect(await client.waitForSync(connected.id, { intervalMs: 10 })).toMatchObject({
      status: 'failed',
      error: SYNC_MESSAGES.didNotAnswer,
    });
  });

  it('keeps the last good tool set when a later sync fails, and takes the new one when it works', async () => {
    const { endpoint, client, route } = await syncOnce({ body: manifestOf('orderStatus') });
    expect(endpoint.status).toBe('synced');
    route.serve(PATH, { status: 500, body: 'down' });
    expect(await client.sync()).toMatchObject({
      status: 'failed',
      error: 'The endpoint answered 500.',
      tools: [{ name: 'orderStatus', enabled: true }],
      syncedAt: endpoint.syncedAt,
    });
    route.serve(PATH, { body: manifestOf('orderStatus', 'refundOrder') });
    expect(await client.sync(route.url(PATH))).toMatchObject({
      status: 'synced',
      error: null,
      tools: [
        { name: 'orderStatus', enabled: true },
        { name: 'refundOrder', enabled: true },
      ],
    });
  });
});

describe('emulator sync: rules across endpoints', () => {
  it('fails the newer endpoint on a clash, with the docs message naming the older one', async () => {
    const { client } = await useEmulator();
    const route = await useManifestServer();
    route.serve('/old', { body: manifestOf('orderStatus') });
    route.serve('/new', { body: manifestOf('lookupCustomer', 'orderStatus') });
    const old = await client.connect(route.url('/old'));
    await client.waitForSync(old.id, { intervalMs: 10 });
    const fresh = await client.connect(route.url('/new'));
    const failed = await client.waitForSync(fresh.id, { intervalMs: 10 });
    expect(failed).toMatchObject({
      status: 'failed',
      error: `The tool name "orderStatus" already comes from ${route.url('/old')}. Tool names have to be unique across every endpoint.`,
      tools: [],
    });
    // The older endpoint still syncs: the clash is the newer one's to fix.
    expect(await client.sync(route.url('/old'))).toMatchObject({ status: 'synced' });
    // Removing the old endpoint lets the newer one sync.
    await client.removeEndpoint(old.id);
    expect(await client.sync()).toMatchObject({ status: 'synced', tools: [{ name: 'lookupCustomer' }, { name: 'orderStatus' }] });
  });

  it('fails an endpoint that would take the organization past 20 tools', async () => {
    const { client } = await useEmulator();
    const route = await useManifestServer();
    const names = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
    route.serve('/a', { body: manifestOf(...names('a', 12)) });
    route.serve('/b', { body: manifestOf(...names('b', 9)) });
    const a = await client.connect(route.url('/a'));
    expect(await client.waitForSync(a.id, { intervalMs: 10 })).toMatchObject({ status: 'synced' });
    const b = await client.connect(route.url('/b'));
    expect(await client.waitForSync(b.id, { intervalMs: 10 })).toMatchObject({
      status: 'failed',
      error: 'These endpoints would declare 21 tools together, and the organization limit is 20.',
    });
    route.serve('/b', { body: manifestOf(...names('b', 8)) });
    expect(await client.sync(route.url('/b'))).toMatchObject({ status: 'synced' });
  });
});
