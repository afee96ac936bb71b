import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startRecordingProxy } from '../../src/proxy/index.js';
import { useRecordingProxy } from '../integration/proxy/proxy-harness.js';
import { freePort } from '../helpers/e2e-world.js';
import { useHttpServer } from '../helpers/use-http-server.js';
import { useTeardown } from '../helpers/use-teardown.js';

/**
 * A raw byte relay on 127.0.0.1 to `port`: what a tunnel is to the proxy (the
 * localtunnel server and client copy bytes both ways and change nothing), so
 * a --target set to the public tunnel URL leads back to the proxy this way.
 * The proxy sees the relay's own connection, not one of its own.
 */
async function useRelayTo(port: number): Promise<string> {
  const sockets = new Set<Socket>();
  const relay = createServer((inbound) => {
    const outbound = connect(port, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => sockets.delete(s));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  useTeardown(relay, (r) => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => r.close(resolve));
  });
  return `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
}

/**
 * Break 11: a --target pointing at the proxy itself made one request take
 * hundreds of descriptors for over 90 s, hang, and leave no record. The loop
 * is refused at start, and a loop met later (a target that only resolves to
 * the proxy) is answered 508 at once, recorded, and said.
 */
describe('break 11: the proxy as its own target', () => {
  it.each(['127.0.0.1', 'localhost', '[::1]'])('is refused at start: --target http://%s:<the proxy port>', async (host) => {
    const port = await freePort();
    await expect(startRecordingProxy({ target: `http://${host}:${port}`, route: '/api/median', port, onRecord: () => undefined })).rejects.toMatchObject({
      code: 'target_is_proxy',
      hint: expect.stringContaining('--target'),
    });
  });

  it('a loop met while running is answered 508 at once, recorded with proxy_loop, and said once', async () => {
    const devServer = await useHttpServer((_req, res) => res.end('ok'));
    const warnings: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, warn: (m: string) => void warnings.push(m), error: () => undefined };
    const { proxy, waitForRecords } = await useRecordingProxy({ target: devServer.url, logger });
    // The target changes to an address the start check does not know as this proxy.
    proxy.setTarget(`http://[::ffff:127.0.0.1]:${proxy.port}`);
    const started = Date.now();
    const answer = await fetch(`${proxy.url}/api/median`, { method: 'POST', body: '{"tool":"x"}', signal: AbortSignal.timeout(5_000) });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(answer.status).toBe(508);
    const body = (await answer.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('proxy_loop');
    const records = await waitForRecords(2);
    // The looped request: answered by the proxy (no answer from a dev server), error proxy_loop.
    expect(records.filter((r) => r.error?.code === 'proxy_loop')).toHaveLength(1);
    // The caller's request: the 508 came back as its answer.
    expect(records.filter((r) => r.response?.status === 508)).toHaveLength(1);
    expect(warnings.filter((w) => w.includes('leads back to this proxy'))).toHaveLength(1);
  });

  it('a loop through a relay it cannot see (the public tunnel URL as --target) is answered 508 by its own Via entry', async () => {
    const devServer = await useHttpServer((_req, res) => res.end('ok'));
    const { proxy, waitForRecords } = await useRecordingProxy({ target: devServer.url });
    proxy.setTarget(await useRelayTo(proxy.port));

    const answer = await fetch(`${proxy.url}/api/median`, { method: 'POST', body: '{"tool":"x"}', signal: AbortSignal.timeout(5_000) });

    expect(answer.status).toBe(508);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('proxy_loop');
    const records = await waitForRecords(2);
    expect(records.filter((r) => r.error?.code === 'proxy_loop')).toHaveLength(1);
  });

  it('the dev server sees one Via entry of the proxy after any earlier proxy\'s, and is not taken for a loop', async () => {
    const seen: (string | undefined)[] = [];
    const devServer = await useHttpServer((req, res) => {
      seen.push(req.headers.via);
      res.end('ok');
    });
    const { proxy } = await useRecordingProxy({ target: devServer.url });

    const plain = await fetch(`${proxy.url}/api/median`, { method: 'POST', body: '{}' });
    // A request that came through the tunnel server's front proxy, which names itself (and another median-dev's entry).
    const proxied = await fetch(`${proxy.url}/api/median`, { method: 'POST', body: '{}', headers: { via: '1.1 front-proxy, 1.1 median-dev-someone-else' } });

    expect([plain.status, proxied.status]).toEqual([200, 200]);
    expect(seen[0]).toMatch(/^1\.1 median-dev-[\w-]+$/);
    expect(seen[1]).toBe(`1.1 front-proxy, 1.1 median-dev-someone-else, ${seen[0]}`);
  });
});
