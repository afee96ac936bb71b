import { DEFAULT_NGROK_API } from '../config/tunnel-config.js';
import type { Config } from '../config/resolve-config.js';
import { findExecutable } from '../platform/find-executable.js';
import { listAgentEndpoints } from '../tunnel/ngrok-agent-provider.js';
import { loadNgrokLibrary } from '../tunnel/ngrok-library.js';
import type { DoctorCheck } from './doctor-check.js';

/**
 * `doctor`'s `tunnel-provider` line: the provider the next `start` in this
 * data dir uses (the last `--tunnel` given, else localtunnel; `auto` decided
 * as start decides it), and whether what it needs is here: the program on
 * PATH (cloudflared, ssh), the server (ssh), the authtoken and the package,
 * or a running agent (ngrok).
 */
export async function checkTunnelProvider(config: Config, env: Readonly<Record<string, string | undefined>>): Promise<DoctorCheck> {
  const chosen = config.state.tunnel ?? 'localtunnel';
  const check = (status: DoctorCheck['status'], message: string, fix?: string): DoctorCheck => ({ check: 'tunnel-provider', status, message, ...(fix ? { fix } : {}) });
  switch (chosen) {
    case 'cloudflared': {
      const path = findExecutable('cloudflared', env);
      return path
        ? check('ok', `cloudflared, at ${path}.`)
        : check('fail', 'cloudflared (the last --tunnel given here), but cloudflared is not on PATH.', 'Install cloudflared (brew install cloudflared, or the package from Cloudflare) or pick another provider: `median-dev start --tunnel localtunnel`.');
    }
    case 'ssh': {
      const path = findExecutable('ssh', env);
      if (!path) return check('fail', 'ssh (the last --tunnel given here), but ssh is not on PATH.', 'Install the OpenSSH client, or pick another provider with --tunnel.');
      return check('ok', `ssh to ${config.state.sshDestination ?? '(no server remembered: pass --ssh)'}, with ${path}.`);
    }
    case 'ngrok':
      return checkNgrok(config, check);
    case 'auto': {
      if (config.ngrokAuthtoken && (await loadNgrokLibrary())) return check('ok', 'auto: ngrok, because NGROK_AUTHTOKEN is set.');
      const path = findExecutable('cloudflared', env);
      if (path) return check('ok', `auto: cloudflared, because it is on PATH (${path}).`);
      return check('ok', 'auto: localtunnel, because NGROK_AUTHTOKEN is not set (or @ngrok/ngrok is not installed) and cloudflared is not on PATH.');
    }
    case 'none':
      return check('ok', 'none: your own tunnel to the proxy (--public-url).');
    default:
      return check('ok', 'localtunnel.', 'A static ngrok domain never changes hostname: `median-dev start --tunnel ngrok --domain <yours>.ngrok-free.dev`.');
  }
}

async function checkNgrok(config: Config, check: (status: DoctorCheck['status'], message: string, fix?: string) => DoctorCheck): Promise<DoctorCheck> {
  const proxyPort = config.state.proxyUrl ? Number(new URL(config.state.proxyUrl).port) : undefined;
  const agent = await listAgentEndpoints(DEFAULT_NGROK_API).catch(() => undefined);
  const forwarding = agent?.find((endpoint) => endpoint.upstreamPort === proxyPort);
  if (forwarding) return check('ok', `ngrok: the agent at ${DEFAULT_NGROK_API} forwards ${forwarding.url} to the proxy.`);
  const domain = config.state.ngrokDomain ? ` with the static domain ${config.state.ngrokDomain}` : '';
  if (!config.ngrokAuthtoken) {
    return check('fail', `ngrok${domain}, but NGROK_AUTHTOKEN is not set and no ngrok agent forwards to the proxy.`, 'Put NGROK_AUTHTOKEN=… in .env.local (from https://dashboard.ngrok.com/get-started/your-authtoken), or run `ngrok http 4141` and start with --attach.');
  }
  if (!(await loadNgrokLibrary())) {
    return check('fail', `ngrok${domain}, but the @ngrok/ngrok package is not installed.`, 'npm install @ngrok/ngrok beside median-dev, or run the ngrok agent yourself and start with --attach.');
  }
  return check('ok', `ngrok in process${domain}; NGROK_AUTHTOKEN is set.`);
}
