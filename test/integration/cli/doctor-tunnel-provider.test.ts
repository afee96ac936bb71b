import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.js';
import { checkTunnelProvider } from '../../../src/cli/doctor-provider-check.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { FAKES_DIR } from '../../helpers/fake-tunnel-programs.js';

async function configWith(state: Record<string, unknown>, env: Record<string, string> = {}) {
  const dir = await useTempDir('median-dev-doctor-provider-');
  await mkdir(join(dir, '.median-dev'), { recursive: true });
  await writeFile(join(dir, '.median-dev', 'state.json'), JSON.stringify({ version: 1, ...state }));
  return resolveConfig({}, { env, cwd: dir });
}

describe('doctor names the tunnel provider and checks it', () => {
  it('cloudflared on PATH: ok, naming where; not on PATH: fail with the install hint', async () => {
    const config = await configWith({ tunnel: 'cloudflared' });
    expect(await checkTunnelProvider(config, { PATH: FAKES_DIR })).toMatchObject({ check: 'tunnel-provider', status: 'ok', message: expect.stringContaining(FAKES_DIR) });
    expect(await checkTunnelProvider(config, { PATH: '/nonexistent' })).toMatchObject({ status: 'fail', fix: expect.stringContaining('Install cloudflared') });
  });

  it('ngrok without NGROK_AUTHTOKEN (and no agent) fails; with it (the package is installed here) passes', async () => {
    const without = await configWith({ tunnel: 'ngrok', ngrokDomain: 'my-shop.ngrok-free.dev', proxyUrl: 'http://127.0.0.1:9' });
    expect(await checkTunnelProvider(without, {})).toMatchObject({ status: 'fail', message: expect.stringContaining('NGROK_AUTHTOKEN is not set') });
    const withToken = await configWith({ tunnel: 'ngrok', proxyUrl: 'http://127.0.0.1:9' }, { NGROK_AUTHTOKEN: 'tok' });
    expect(await checkTunnelProvider(withToken, {})).toMatchObject({ status: 'ok', message: expect.stringContaining('ngrok in process') });
  });

  it('ssh names the remembered server; the default is localtunnel', async () => {
    expect(await checkTunnelProvider(await configWith({ tunnel: 'ssh', sshDestination: 'nokey@localhost.run' }), process.env)).toMatchObject({ status: 'ok', message: expect.stringContaining('nokey@localhost.run') });
    expect(await checkTunnelProvider(await configWith({}), {})).toMatchObject({ status: 'ok', message: 'localtunnel.' });
  });
});
