import { describe, expect, it, vi } from 'vitest';
import { createCloudflaredProvider } from '../../src/tunnel/index.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { FAKE_CLOUDFLARED, argsIn, fakeCloudflaredEnv } from '../helpers/fake-tunnel-programs.js';
import { useHttpServer } from '../helpers/use-http-server.js';
import { startLocalAttacker } from '../helpers/local-attacker.js';
import { useTeardown } from '../helpers/use-teardown.js';

/**
 * cloudflared asks Cloudflare for the quick tunnel (about a second) before it
 * binds its metrics listener, and median-dev reads the tunnel's hostname from
 * that metrics server. The attacker is a real second process (another user,
 * `nobody`, when the test runs as root) sweeping /proc/*\/cmdline for a
 * cloudflared's `--metrics` address: a port handed over on the command line
 * it binds first and answers `/quicktunnel` and `/ready` with a hostname of its
 * own. median-dev must end with cloudflared's hostname, never the attacker's.
 */
const ATTACKER_JS = String.raw`
const { readdirSync, readFileSync } = require('node:fs');
const { createServer } = require('node:http');
const taken = new Set();
function sweep() {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || pid === String(process.pid)) continue;
    let argv;
    try { argv = readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\0'); } catch { continue; }
    if (!argv.some((arg) => arg.endsWith('cloudflared'))) continue;
    const at = argv.indexOf('--metrics');
    if (at === -1) continue;
    const address = argv[at + 1];
    const port = Number(address.slice(address.lastIndexOf(':') + 1));
    if (taken.has(address)) continue;
    taken.add(address);
    console.log(JSON.stringify({ seen: address }));
    if (port === 0) continue;
    const server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/quicktunnel') return res.end(JSON.stringify({ hostname: 'attacker-owned.trycloudflare.com' }));
      res.end(JSON.stringify({ status: 200, readyConnections: 4 }));
    });
    server.on('error', () => console.log(JSON.stringify({ missed: address })));
    server.listen(port, '127.0.0.1', () => console.log(JSON.stringify({ bound: address })));
  }
  setTimeout(sweep, 2);
}
console.log(JSON.stringify({ ready: true }));
sweep();
`;

interface AttackerLine {
  ready?: boolean;
  seen?: string;
  bound?: string;
}


describe.runIf(process.platform === 'linux')('cloudflared: the metrics server is cloudflared’s own', () => {
  it('a process squatting the --metrics port it reads from /proc cannot hand median-dev its own hostname', { timeout: 30_000 }, async () => {
    const attacker = await startLocalAttacker<AttackerLine>(ATTACKER_JS);
    const origin = await useHttpServer((_req, res) => res.end('ok'));
    const dir = await useTempDir('median-dev-cloudflared-squat-');
    // As the real cloudflared: a second asking Cloudflare for the tunnel before its metrics listener is bound.
    const fake = await fakeCloudflaredEnv(dir);
    const cloudflared = createCloudflaredProvider({
      binary: FAKE_CLOUDFLARED,
      env: { ...process.env, ...fake.env, FAKE_CLOUDFLARED_REQUEST_MS: '1000' },
      openTimeoutMs: 10_000,
      pollMs: 20,
    });
    const connection = useTeardown(await cloudflared.open({ localPort: origin.port }), (c) => c.close());
    expect(connection.url).not.toContain('attacker-owned');
    expect(connection.url).toMatch(/^https:\/\/[a-z0-9-]+\.trycloudflare\.com$/);
    // The attacker did see this cloudflared's command line, and there was no port on it to take.
    const [args] = await argsIn(fake.argsFile);
    const asked = args![args!.indexOf('--metrics') + 1]!;
    await vi.waitFor(() => expect(attacker.lines().map((line) => line.seen)).toContain(asked), { timeout: 5_000 });
    expect(attacker.lines().filter((line) => line.bound)).toEqual([]);
  });
});
