import { describe, expect, it } from 'vitest';
import { resolveTunnelSettings, type TunnelFlags } from '../../../src/config/index.js';
import { chooseTunnelProvider } from '../../../src/daemon/tunnel-provider-choice.js';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { FAKES_DIR } from '../../helpers/fake-tunnel-programs.js';
import { useFakeNgrokAgent } from '../../helpers/use-fake-ngrok-agent.js';

const parsed = { publicUrl: undefined, tunnelHost: 'https://localtunnel.me' };

function choose(flags: TunnelFlags, env: Record<string, string>, ngrokAuthtoken?: string) {
  const settings = resolveTunnelSettings(flags, parsed, { version: 1 });
  return chooseTunnelProvider({
    config: { ...settings, tunnelDomains: [], ngrokAuthtoken, target: 'http://localhost:3000' },
    localPort: 4141,
    env,
    logger: createRecordingLogger(),
  });
}

describe('which provider start uses', () => {
  it('auto: ngrok when NGROK_AUTHTOKEN is set (the package is installed here), saying why', async () => {
    const choice = await choose({ tunnel: 'auto', ngrokApi: 'http://127.0.0.1:9' }, { PATH: FAKES_DIR }, 'tok');
    expect(choice).toMatchObject({ label: 'ngrok', why: 'NGROK_AUTHTOKEN is set' });
    expect(choice.provider.name).toBe('ngrok');
  });

  it('auto: else cloudflared when it is on PATH', async () => {
    const choice = await choose({ tunnel: 'auto' }, { PATH: FAKES_DIR });
    expect(choice.label).toBe('cloudflared');
    expect(choice.why).toContain(FAKES_DIR);
  });

  it('auto: else localtunnel, saying neither was found', async () => {
    const choice = await choose({ tunnel: 'auto' }, { PATH: '/nonexistent' });
    expect(choice).toMatchObject({ label: 'localtunnel', why: 'NGROK_AUTHTOKEN is not set and cloudflared is not on PATH' });
  });

  it('ngrok attaches by itself to an agent that already forwards to the proxy', async () => {
    const agent = await useFakeNgrokAgent();
    agent.serve([{ url: 'https://x.ngrok-free.app', upstream: 'localhost:4141' }]);
    const choice = await choose({ tunnel: 'ngrok', ngrokApi: agent.apiUrl }, {}, 'tok');
    expect(choice.label).toBe('ngrok agent');
    expect(choice.why).toContain('https://x.ngrok-free.app');
  });

  it('the last --tunnel, --domain and --ssh are taken from the data dir when left out; a flag wins', () => {
    const state = { version: 1 as const, tunnel: 'ngrok', ngrokDomain: 'my-shop.ngrok-free.dev', sshDestination: 'nokey@localhost.run' };
    expect(resolveTunnelSettings({}, parsed, state)).toMatchObject({ tunnel: 'ngrok', isTunnelRemembered: true, ngrokDomain: 'my-shop.ngrok-free.dev' });
    expect(resolveTunnelSettings({ tunnel: 'ssh' }, parsed, state)).toMatchObject({ tunnel: 'ssh', isTunnelRemembered: false, sshDestination: 'nokey@localhost.run', ngrokDomain: undefined });
    expect(resolveTunnelSettings({}, parsed, { version: 1, tunnel: 'bogus' })).toMatchObject({ tunnel: 'localtunnel', isTunnelRemembered: false });
  });
});
