/**
 * `npm run test:live-tunnels`: for a machine with internet (never CI, which
 * has none). Opens each provider for real, as `median-dev start` would, when
 * what it needs is here — localtunnel always; ngrok with NGROK_AUTHTOKEN
 * (and NGROK_DOMAIN for a static domain); an ngrok agent already running
 * (`ngrok http <port>` is not started for you); cloudflared on PATH; ssh when
 * MEDIAN_DEV_LIVE_SSH names a server whose host key you accepted — then
 * fetches the public URL and checks the answer came from the local server
 * through the tunnel. Prints a table; exits 1 when a provider that ran failed.
 *
 *   npm run test:live-tunnels
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { findExecutable } from '../../src/platform/index.js';
import {
  createCloudflaredProvider,
  createLocaltunnelProvider,
  createNgrokAgentProvider,
  createNgrokProvider,
  createSshProvider,
  listAgentEndpoints,
  type TunnelProvider,
} from '../../src/tunnel/index.js';

interface Row {
  provider: string;
  outcome: 'ok' | 'failed' | 'not run';
  detail: string;
}

async function main(): Promise<void> {
  const marker = randomBytes(8).toString('hex');
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ marker })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const env = process.env;
  const candidates: Array<{ name: string; provider?: TunnelProvider; why?: string }> = [
    { name: 'localtunnel', provider: createLocaltunnelProvider({ host: env.MEDIAN_DEV_TUNNEL_HOST ?? 'https://localtunnel.me' }) },
    env.NGROK_AUTHTOKEN
      ? { name: 'ngrok', provider: createNgrokProvider({ authtoken: env.NGROK_AUTHTOKEN, ...(env.NGROK_DOMAIN ? { domain: env.NGROK_DOMAIN } : {}) }) }
      : { name: 'ngrok', why: 'NGROK_AUTHTOKEN is not set' },
    (await listAgentEndpoints('http://127.0.0.1:4040').catch(() => [])).some((e) => e.upstreamPort === port)
      ? { name: 'ngrok agent', provider: createNgrokAgentProvider({ apiUrl: 'http://127.0.0.1:4040' }) }
      : { name: 'ngrok agent', why: `no ngrok agent forwards to port ${port} (it changes every run: attach is tested offline)` },
    findExecutable('cloudflared', env)
      ? { name: 'cloudflared', provider: createCloudflaredProvider({ binary: findExecutable('cloudflared', env)!, env }) }
      : { name: 'cloudflared', why: 'cloudflared is not on PATH' },
    env.MEDIAN_DEV_LIVE_SSH && findExecutable('ssh', env)
      ? { name: 'ssh', provider: createSshProvider({ binary: findExecutable('ssh', env)!, destination: env.MEDIAN_DEV_LIVE_SSH, env }) }
      : { name: 'ssh', why: 'MEDIAN_DEV_LIVE_SSH is not set (e.g. nokey@localhost.run, after accepting its host key once)' },
  ];
  const rows: Row[] = [];
  for (const candidate of candidates) {
    if (!candidate.provider) {
      rows.push({ provider: candidate.name, outcome: 'not run', detail: candidate.why ?? '' });
      continue;
    }
    const started = Date.now();
    try {
      const connection = await candidate.provider.open({ localPort: port }, { signal: AbortSignal.timeout(60_000) });
      try {
        const res = await fetch(`${connection.url}/live-check`, { headers: { 'bypass-tunnel-reminder': '1' }, signal: AbortSignal.timeout(30_000) });
        const body = (await res.json().catch(() => undefined)) as { marker?: string } | undefined;
        const isOurs = body?.marker === marker;
        rows.push({ provider: candidate.name, outcome: isOurs ? 'ok' : 'failed', detail: `${connection.url} ${res.status}${isOurs ? '' : ' (not our server’s answer)'}, ${Date.now() - started} ms` });
      } finally {
        await connection.close();
      }
    } catch (error) {
      rows.push({ provider: candidate.name, outcome: 'failed', detail: `${(error as { code?: string }).code ?? 'error'}: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
  server.close();
  for (const row of rows) console.log(`${row.provider.padEnd(12)} ${row.outcome.padEnd(8)} ${row.detail}`);
  process.exitCode = rows.some((row) => row.outcome === 'failed') ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error('test:live-tunnels failed:', error);
  process.exitCode = 1;
});
