import { describe, expect, it, vi } from 'vitest';
import { createNgrokAgentProvider, startTunnel, type TunnelEvent } from '../../../src/tunnel/index.js';
import { getThroughEdge } from '../../helpers/fake-tunnel-programs.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useFakeNgrokAgent } from '../../helpers/use-fake-ngrok-agent.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';

describe('attaching to a running ngrok agent', () => {
  for (const shape of ['endpoints', 'tunnels'] as const) {
    it(`finds the https endpoint that forwards to the proxy (/api/${shape})`, async () => {
      const agent = await useFakeNgrokAgent(shape);
      const proxy = await useHttpServer((req, res) => res.end(JSON.stringify({ path: req.url })));
      agent.serve([
        { url: 'https://other.ngrok-free.app', upstream: 'localhost:9999' },
        { url: 'https://my-shop.ngrok-free.dev', upstream: shape === 'tunnels' ? `http://localhost:${proxy.port}` : `${proxy.port}` },
      ]);
      const provider = createNgrokAgentProvider({ apiUrl: agent.apiUrl });
      const connection = useTeardown(await provider.open({ localPort: proxy.port }), (c) => c.close());
      expect(connection.url).toBe('https://my-shop.ngrok-free.dev');
      expect(agent.apiRequests[0]).toBe('/api/endpoints');
      if (shape === 'tunnels') expect(agent.apiRequests[1]).toBe('/api/tunnels');
      expect(JSON.parse((await getThroughEdge(agent.edgePort, connection.url, '/api/median')).body)).toEqual({ path: '/api/median' });
    });
  }

  it('an agent that forwards to the dev server is refused: calls would bypass the recorder', async () => {
    const agent = await useFakeNgrokAgent();
    agent.serve([{ url: 'https://my-shop.ngrok-free.dev', upstream: 'localhost:3000' }]);
    const provider = createNgrokAgentProvider({ apiUrl: agent.apiUrl, targetPort: 3000 });
    await expect(provider.open({ localPort: 4141 })).rejects.toMatchObject({ code: 'ngrok_agent_bypasses_recorder' });
  });

  it('no endpoint for the proxy is ngrok_agent_no_endpoint; no agent is ngrok_agent_unreachable', async () => {
    const agent = await useFakeNgrokAgent();
    agent.serve([]);
    await expect(createNgrokAgentProvider({ apiUrl: agent.apiUrl }).open({ localPort: 4141 })).rejects.toMatchObject({ code: 'ngrok_agent_no_endpoint' });
    await agent.close();
    await expect(createNgrokAgentProvider({ apiUrl: agent.apiUrl }).open({ localPort: 4141 })).rejects.toMatchObject({ code: 'ngrok_agent_unreachable' });
  });

  it('an agent that stops answering (quit, or hung) is a lost tunnel, seen at the next look (every 5 s on its clock)', async () => {
    const agent = await useFakeNgrokAgent();
    agent.serve([{ url: 'https://aaa.ngrok-free.app', upstream: 'localhost:4141' }]);
    const clock = createManualClock();
    const connection = useTeardown(await createNgrokAgentProvider({ apiUrl: agent.apiUrl, clock }).open({ localPort: 4141 }), (c) => c.close());
    let reason: string | undefined;
    connection.onLost((why) => (reason = why));
    await agent.close();
    expect(clock.nextTimerIn()).toBe(5_000);
    clock.advance(5_000);
    await vi.waitFor(() => expect(reason).toMatch(/stopped answering \(ngrok_agent_unreachable\)/));
    // Lost: it looks no more.
    expect(clock.pendingTimers()).toBe(0);
  });

  it('follows the agent: a new URL for the proxy is a hostname change', async () => {
    const agent = await useFakeNgrokAgent();
    const proxy = await useHttpServer((_req, res) => res.end('{}'));
    agent.serve([{ url: 'https://aaa.ngrok-free.app', upstream: `localhost:${proxy.port}` }]);
    const events: TunnelEvent[] = [];
    const handle = useTeardown(
      await startTunnel({ provider: createNgrokAgentProvider({ apiUrl: agent.apiUrl, followMs: 50 }), localPort: proxy.port, onEvent: (e) => events.push(e), quickReopenMs: 20, wakeJumpMs: 0 }),
      (h) => h.close(),
    );
    expect(handle.url).toBe('https://aaa.ngrok-free.app');
    agent.serve([{ url: 'https://bbb.ngrok-free.app', upstream: `localhost:${proxy.port}` }]);
    await vi.waitFor(() => expect(handle.url).toBe('https://bbb.ngrok-free.app'), { timeout: 5_000 });
    expect(events.filter((e) => e.type === 'opened').at(-1)).toMatchObject({ isHostnameChange: true, previousUrl: 'https://aaa.ngrok-free.app' });
    await handle.close();
  });
});
