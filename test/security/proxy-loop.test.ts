import { describe, expect, it } from 'vitest';
import { startRecordingProxy } from '../../src/proxy/index.js';
import { useRecordingProxy } from '../integration/proxy/proxy-harness.js';
import { freePort } from '../helpers/e2e-world.js';
import { useHttpServer } from '../helpers/use-http-server.js';

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
});
