import type { StartConfig } from '../config/index.js';
import { findExecutable } from '../platform/index.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import {
  createCloudflaredProvider,
  createLocaltunnelProvider,
  createNgrokAgentProvider,
  createNgrokProvider,
  createNoTunnelProvider,
  createSshProvider,
  listAgentEndpoints,
  loadNgrokLibrary,
  type TunnelProvider,
} from '../tunnel/index.js';

/** The provider `start` uses, and why (said once when it was decided, not given). */
export interface ProviderChoice {
  provider: TunnelProvider;
  /** `localtunnel`, `ngrok`, `ngrok agent`, `cloudflared`, `ssh`, `none`. */
  label: string;
  /** Why this one, when median-dev decided (`--tunnel auto`, an agent found running). */
  why?: string;
}

export interface ProviderChoiceOptions {
  config: Pick<
    StartConfig,
    'tunnel' | 'tunnelHost' | 'tunnelDomains' | 'publicUrl' | 'ngrokAuthtoken' | 'ngrokDomain' | 'ngrokAttach' | 'ngrokApi' | 'sshDestination' | 'sshOptions' | 'cloudflaredTunnel' | 'target'
  >;
  localPort: number;
  /** The environment the tunnel programs run with (PATH finds them). */
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  openTimeoutMs?: number;
  lostAfterMs?: number;
  /** Every provider's waits run on it (localtunnel's open timeout, lost window and socket retries; the others' open timeouts, polls and pauses); tests drive it. */
  clock?: Clock;
  /** How often an attached ngrok agent is looked at (tests: shorter). */
  agentFollowMs?: number;
}

/**
 * Builds the tunnel provider `--tunnel` names. `auto` picks ngrok when
 * NGROK_AUTHTOKEN is set (and @ngrok/ngrok is installed), else cloudflared
 * when it is on PATH, else localtunnel. `ngrok` attaches to an agent the
 * user already runs when it forwards to the proxy (or with --attach), else
 * runs ngrok in process.
 */
export async function chooseTunnelProvider(options: ProviderChoiceOptions): Promise<ProviderChoice> {
  const { config } = options;
  switch (config.tunnel) {
    case 'none': {
      const publicUrl = config.publicUrl ?? `http://127.0.0.1:${options.localPort}`;
      return { provider: createNoTunnelProvider({ publicUrl }), label: 'none' };
    }
    case 'localtunnel':
      return localtunnel(options);
    case 'cloudflared':
      return cloudflared(options, findExecutable('cloudflared', options.env) ?? 'cloudflared');
    case 'ssh':
      return ssh(options);
    case 'ngrok':
      return ngrok(options);
    case 'auto': {
      if (config.ngrokAuthtoken) {
        if (await loadNgrokLibrary()) return { ...(await ngrok(options)), why: 'NGROK_AUTHTOKEN is set' };
        options.logger.info('--tunnel auto: NGROK_AUTHTOKEN is set, but @ngrok/ngrok is not installed (npm install @ngrok/ngrok)');
      }
      const cloudflaredPath = findExecutable('cloudflared', options.env);
      if (cloudflaredPath) return { ...cloudflared(options, cloudflaredPath), why: `cloudflared is on PATH (${cloudflaredPath})` };
      return {
        ...localtunnel(options),
        why: config.ngrokAuthtoken ? 'NGROK_AUTHTOKEN is set but @ngrok/ngrok is not installed, and cloudflared is not on PATH' : 'NGROK_AUTHTOKEN is not set and cloudflared is not on PATH',
      };
    }
    default: {
      const never: never = config.tunnel;
      throw new Error(`unknown tunnel provider ${String(never)}`);
    }
  }
}

function localtunnel(options: ProviderChoiceOptions): ProviderChoice {
  return {
    provider: createLocaltunnelProvider({
      host: options.config.tunnelHost,
      domains: options.config.tunnelDomains,
      logger: options.logger,
      ...(options.openTimeoutMs ? { openTimeoutMs: options.openTimeoutMs } : {}),
      ...(options.lostAfterMs ? { lostAfterMs: options.lostAfterMs } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    }),
    label: 'localtunnel',
  };
}

function cloudflared(options: ProviderChoiceOptions, binary: string): ProviderChoice {
  const { config } = options;
  const named = config.cloudflaredTunnel && config.publicUrl ? { name: config.cloudflaredTunnel, publicUrl: config.publicUrl } : undefined;
  return {
    provider: createCloudflaredProvider({
      binary,
      env: options.env,
      logger: options.logger,
      ...(named ? { namedTunnel: named } : {}),
      ...(options.openTimeoutMs ? { openTimeoutMs: options.openTimeoutMs } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    }),
    label: named ? `cloudflared (named tunnel ${named.name})` : 'cloudflared',
  };
}

function ssh(options: ProviderChoiceOptions): ProviderChoice {
  const { config } = options;
  return {
    provider: createSshProvider({
      binary: findExecutable('ssh', options.env) ?? 'ssh',
      destination: config.sshDestination ?? '',
      options: config.sshOptions,
      env: options.env,
      logger: options.logger,
      ...(options.openTimeoutMs ? { openTimeoutMs: options.openTimeoutMs } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    }),
    label: `ssh (${config.sshDestination})`,
  };
}

async function ngrok(options: ProviderChoiceOptions): Promise<ProviderChoice> {
  const { config } = options;
  const targetPort = Number(new URL(config.target).port || 80);
  const agent = (): TunnelProvider =>
    createNgrokAgentProvider({
      apiUrl: config.ngrokApi,
      targetPort,
      logger: options.logger,
      ...(options.agentFollowMs ? { followMs: options.agentFollowMs } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  if (config.ngrokAttach) return { provider: agent(), label: 'ngrok agent' };
  // An agent the user already runs for this proxy is used as it is, rather than a second session.
  const running = await listAgentEndpoints(config.ngrokApi).catch(() => []);
  const forwarding = running.find((endpoint) => endpoint.upstreamPort === options.localPort);
  if (forwarding) return { provider: agent(), label: 'ngrok agent', why: `an ngrok agent at ${config.ngrokApi} already forwards ${forwarding.url} to the proxy` };
  return {
    provider: createNgrokProvider({
      authtoken: config.ngrokAuthtoken,
      ...(config.ngrokDomain ? { domain: config.ngrokDomain } : {}),
      logger: options.logger,
      ...(options.openTimeoutMs ? { openTimeoutMs: options.openTimeoutMs } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    }),
    label: config.ngrokDomain ? `ngrok (${config.ngrokDomain})` : 'ngrok',
  };
}
