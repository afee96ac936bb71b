import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig, resolveStartConfig, updateProjectState } from '../../../src/config/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';

async function useDir(): Promise<string> {
  return useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-config-')), (d) => rm(d, { recursive: true, force: true }));
}

describe('resolveConfig', () => {
  it('flags, then env, then the env file, then the last start, then defaults', async () => {
    const cwd = await useDir();
    const dataDir = join(cwd, '.median-dev');
    await updateProjectState(dataDir, { target: 'http://127.0.0.1:5555', route: '/tools', medianApi: 'http://127.0.0.1:4100' });
    await writeFile(join(cwd, '.env.local'), 'MEDIAN_KEY=median_key_fromfile00000000000000000000000000\n');

    const remembered = await resolveConfig({}, { env: {}, cwd });
    expect(remembered).toMatchObject({ target: 'http://127.0.0.1:5555', route: '/tools', medianApi: 'http://127.0.0.1:4100', keySource: 'env-file' });

    const fromEnv = await resolveConfig({}, { env: { MEDIAN_API_URL: 'http://127.0.0.1:4200', MEDIAN_KEY: 'median_key_fromenv0000000000000000000000000' }, cwd });
    expect(fromEnv).toMatchObject({ medianApi: 'http://127.0.0.1:4200', keySource: 'env', medianKey: 'median_key_fromenv0000000000000000000000000' });

    const fromFlags = await resolveConfig({ target: 'http://localhost:3001', medianApi: 'http://127.0.0.1:4300' }, { env: { MEDIAN_API_URL: 'http://127.0.0.1:4200' }, cwd });
    expect(fromFlags).toMatchObject({ target: 'http://localhost:3001', medianApi: 'http://127.0.0.1:4300' });
  });

  it('a running daemon\'s settings come after the flags and before the env file and the last start', async () => {
    const cwd = await useDir();
    await updateProjectState(join(cwd, '.median-dev'), { target: 'http://127.0.0.1:5555', route: '/tools', medianApi: 'http://127.0.0.1:4100' });
    const daemonEnv = join(cwd, 'emulator.env');
    await writeFile(daemonEnv, 'MEDIAN_KEY=median_key_daemonfile000000000000000000000000\nMEDIAN_API_URL=http://127.0.0.1:4999\n');
    const settings = { target: 'http://127.0.0.1:6666', route: '/median', envFile: daemonEnv, medianApi: 'http://127.0.0.1:4444' };
    const runningDaemon = async (dataDir: string) => (dataDir === join(cwd, '.median-dev') ? settings : undefined);
    const config = await resolveConfig({}, { env: {}, cwd, runningDaemon });
    expect(config).toMatchObject({ ...settings, medianKey: 'median_key_daemonfile000000000000000000000000' });
    const told = await resolveConfig({ target: 'http://127.0.0.1:7777', envFile: false, medianApi: 'http://127.0.0.1:4300' }, { env: {}, cwd, runningDaemon });
    expect(told).toMatchObject({ target: 'http://127.0.0.1:7777', route: '/median', envFile: null, medianKey: undefined, medianApi: 'http://127.0.0.1:4300' });
  });

  it('start reuses the last start\'s --target and --route, but not its Median API', async () => {
    const cwd = await useDir();
    await updateProjectState(join(cwd, '.median-dev'), { target: 'http://127.0.0.1:5555', route: '/tools', medianApi: 'http://127.0.0.1:4100' });
    const config = await resolveStartConfig({}, { env: {}, cwd, isTTY: false });
    expect(config).toMatchObject({ target: 'http://127.0.0.1:5555', route: '/tools', medianApi: 'https://api.median.sh', port: 4141, tui: false, restartOnUrlChange: 'auto' });
    const fresh = await resolveStartConfig({}, { env: {}, cwd: await useDir(), isTTY: false });
    expect(fresh).toMatchObject({ target: 'http://localhost:3000', route: '/api/median' });
    const told = await resolveStartConfig({ target: 'http://localhost:3001' }, { env: {}, cwd, isTTY: false });
    expect(told.target).toBe('http://localhost:3001');
  });

  it.each([
    [{ target: 'localhost:3000' }, 'invalid_url_flag'],
    [{ target: 'http://localhost:3000/api' }, 'invalid_url_flag'],
    [{ route: 'api/median' }, 'invalid_route'],
  ])('%j is a usage error %s', async (flags, code) => {
    const cwd = await useDir();
    await expect(resolveConfig(flags, { env: {}, cwd })).rejects.toMatchObject({ code, exitCode: 2 });
  });

  it.each([
    [{ port: '70000' }, 'invalid_port'],
    [{ tunnel: 'frp' }, 'invalid_tunnel'],
    [{ tunnel: 'ssh' }, 'ssh_destination_required'],
    [{ tunnel: 'ssh', ssh: '-oProxyCommand=touch /tmp/x' }, 'invalid_ssh_destination'],
    [{ tunnel: 'ssh', ssh: 'nokey@localhost.run', sshOption: ['-F /dev/null'] }, 'invalid_ssh_option'],
    [{ tunnel: 'localtunnel', ssh: 'nokey@localhost.run' }, 'invalid_tunnel_flags'],
    [{ tunnel: 'cloudflared', domain: 'x.ngrok-free.dev' }, 'invalid_tunnel_flags'],
    [{ tunnel: 'ngrok', domain: 'not a domain' }, 'invalid_ngrok_domain'],
    [{ tunnel: 'localtunnel', attach: true }, 'invalid_tunnel_flags'],
    [{ tunnel: 'cloudflared', cloudflaredTunnel: 'dev' }, 'invalid_tunnel_flags'],
    [{ tunnel: 'ngrok', ngrokApi: 'http://192.168.1.5:4040' }, 'invalid_url_flag'],
    [{ publicUrl: 'https://x.example' }, 'public_url_needs_no_tunnel'],
    [{ subdomain: 'A_B' }, 'invalid_subdomain'],
    [{ restartOnUrlChange: 'sometimes' }, 'invalid_restart_policy'],
  ])('start %j is a usage error %s', async (flags: Record<string, unknown>, code) => {
    const cwd = await useDir();
    await expect(resolveStartConfig(flags, { env: {}, cwd, isTTY: false })).rejects.toMatchObject({ code, exitCode: 2 });
  });
});
