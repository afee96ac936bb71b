import { describe, expect, it } from 'vitest';
import {
  cloudUrlProblem,
  isLocalhostUrl,
  isPrivateAddressUrl,
  judgeSyncAnswer,
  SYNC_LIMITS,
  type SyncFetchOutcome,
} from '../../../src/median/index.js';

const ENDPOINT = 'https://acme.com/api/median';
const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

const goodManifest = {
  version: 1,
  tools: [
    {
      name: 'orderStatus',
      description: 'Look up an order.',
      risk: 'low',
      inputSchema: { type: 'object', properties: { n: { type: 'string' } }, additionalProperties: false },
    },
  ],
};

function answer(status: number, body: string | Uint8Array = '', headers: Record<string, string> = {}, bodyTooLarge?: boolean): SyncFetchOutcome {
  const out: SyncFetchOutcome = { kind: 'answer', status, headers, body: typeof body === 'string' ? enc(body) : body };
  if (bodyTooLarge !== undefined) out.bodyTooLarge = bodyTooLarge;
  return out;
}

/** A valid manifest padded with whitespace to exactly `bytes` bytes. */
function manifestOfBytes(bytes: number): string {
  const json = JSON.stringify(goodManifest);
  return json + ' '.repeat(bytes - json.length);
}

describe('judgeSyncAnswer', () => {
  it('accepts a valid manifest and returns it', () => {
    expect(judgeSyncAnswer(answer(200, JSON.stringify(goodManifest)), ENDPOINT)).toEqual({ ok: true, manifest: goodManifest });
  });

  it.each<[string, SyncFetchOutcome, string]>([
    ['no answer', { kind: 'no-answer' }, 'The endpoint did not answer. Check the URL and that your server is up.'],
    [
      '401',
      answer(401, '{"error":{"code":"invalid_signature","message":"x"}}'),
      "The endpoint refused the signature. Open the route once to reconnect it with that deployment’s MEDIAN_KEY.",
    ],
    ['404', answer(404, 'Not found'), 'The endpoint answered 404.'],
    ['500', answer(500), 'The endpoint answered 500.'],
    ['403', answer(403), 'The endpoint answered 403.'],
    ['1xx', answer(102), 'The endpoint answered 102.'],
    [
      'redirect to an https URL',
      answer(301, '', { location: 'https://www.acme.com/api/median' }),
      'The endpoint redirected to https://www.acme.com/api/median, which syncs never follow. Point it there instead.',
    ],
    [
      'relative redirect, resolved against the endpoint',
      answer(308, '', { Location: '/api/median/' }),
      'The endpoint redirected to https://acme.com/api/median/, which syncs never follow. Point it there instead.',
    ],
    ['redirect to http', answer(302, '', { location: 'http://acme.com/api/median' }), 'The endpoint redirected, which syncs never follow.'],
    ['redirect to a private address', answer(307, '', { location: 'https://10.0.0.5/x' }), 'The endpoint redirected, which syncs never follow.'],
    ['redirect to localhost', answer(307, '', { location: 'https://localhost/x' }), 'The endpoint redirected, which syncs never follow.'],
    ['redirect to a login page at a private IPv6', answer(302, '', { location: 'https://[fd00::1]/login' }), 'The endpoint redirected, which syncs never follow.'],
    ['redirect without a Location', answer(302), 'The endpoint redirected, which syncs never follow.'],
    [
      'an HTML page',
      answer(200, '<!doctype html><html></html>'),
      'The endpoint did not answer with JSON. Is the URL pointing at the route exported by median()?',
    ],
    ['an empty 200', answer(200), 'The endpoint did not answer with JSON. Is the URL pointing at the route exported by median()?'],
    ['invalid UTF-8', answer(200, new Uint8Array([0xff, 0xfe, 0x80])), 'The endpoint did not answer with JSON. Is the URL pointing at the route exported by median()?'],
    ['the reader stopped at the limit', answer(200, '{', {}, true), 'The manifest is too large to read.'],
    ['one byte over 500 KB', answer(200, manifestOfBytes(SYNC_LIMITS.maxManifestBytes + 1)), 'The manifest is too large to read.'],
    [
      'a manifest rule',
      answer(200, JSON.stringify({ ...goodManifest, version: 2 })),
      'The manifest version is 2, and this backend speaks version 1. Update @mediansh/agent-tools or Median, whichever is behind.',
    ],
    ['JSON that is not an object', answer(200, '"hi"'), 'The manifest has to be a JSON object.'],
  ])('%s', (_label, outcome, message) => {
    expect(judgeSyncAnswer(outcome, ENDPOINT)).toEqual({ ok: false, message });
  });

  it('reads exactly 500 KB (500 * 1024 bytes)', () => {
    expect(SYNC_LIMITS.maxManifestBytes).toBe(512_000);
    expect(judgeSyncAnswer(answer(200, manifestOfBytes(SYNC_LIMITS.maxManifestBytes)), ENDPOINT).ok).toBe(true);
  });
});

describe('cloud-only URL rules (for doctor)', () => {
  it.each<[string, boolean, boolean]>([
    ['http://localhost:3000/api/median', true, false],
    ['http://LOCALHOST./api/median', true, false],
    ['http://app.localhost/api/median', true, false],
    ['http://127.0.0.1:3000/api/median', true, false],
    ['http://127.1/', true, false],
    ['http://0.0.0.0:3000/', true, false],
    ['http://[::1]:3000/', true, false],
    ['http://[::ffff:127.0.0.1]/', true, false],
    ['https://10.1.2.3/', false, true],
    ['https://0xa.1/', false, true],
    ['https://172.16.0.1/', false, true],
    ['https://172.31.255.255/', false, true],
    ['https://172.32.0.1/', false, false],
    ['https://192.168.1.10/', false, true],
    ['https://169.254.169.254/', false, true],
    ['https://100.64.0.1/', false, true],
    ['https://100.128.0.1/', false, false],
    ['https://[fc00::1]/', false, true],
    ['https://[fdab::1]/', false, true],
    ['https://[fe80::1]/', false, true],
    ['https://[::ffff:192.168.0.1]/', false, true],
    ['https://[::ffff:10.0.0.1]/', false, true],
    ['https://[2001:db8::1]/', false, false],
    ['https://8.8.8.8/', false, false],
    ['https://acme.com/api/median', false, false],
    ['not a url', false, false],
  ])('%s local=%s private=%s', (url, local, privateAddress) => {
    expect(isLocalhostUrl(url)).toBe(local);
    expect(isPrivateAddressUrl(url)).toBe(privateAddress);
  });

  it.each<[string, string | undefined]>([
    [
      'http://localhost:3000/api/median',
      "http://localhost:3000 is this deployment’s own machine, not yours. Median calls your endpoint from the cloud, so a local address needs a tunnel.",
    ],
    ['https://192.168.1.10/api/median', 'That address points inside a network, not at the internet.'],
    ['https://acme.com/api/median', undefined],
  ])('cloudUrlProblem(%s)', (url, message) => {
    expect(cloudUrlProblem(url)).toBe(message);
  });
});
