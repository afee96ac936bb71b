import { UserError, type ErrorCode } from '../shared/errors.js';
import { DEFAULTS, TUNNEL_PROVIDERS, type TunnelProviderName } from './defaults.js';
import type { ProjectState } from './project-state.js';

/** `start`'s tunnel flags. Absent means "not given". */
export interface TunnelFlags {
  tunnel?: string;
  tunnelHost?: string;
  subdomain?: string;
  publicUrl?: string;
  /** ngrok: the static domain (`<name>.ngrok-free.dev`). */
  domain?: string;
  /** ngrok: use the agent the user already runs instead of starting one in process. */
  attach?: boolean;
  /** ngrok: the running agent's API (default http://127.0.0.1:4040). */
  ngrokApi?: string;
  /** ssh: the server, `[user@]host` or `ssh://[user@]host[:port]`. */
  ssh?: string;
  /** ssh: extra `-o Key=Value` options, in order. */
  sshOption?: string[];
  /** cloudflared: a named tunnel (with --public-url) instead of a quick tunnel. */
  cloudflaredTunnel?: string;
}

/** Where the tunnel goes and how, resolved once. */
export interface TunnelSettings {
  /** The provider; `auto` is decided when the daemon starts (it looks at PATH and the token). */
  tunnel: TunnelProviderName;
  /** `--tunnel` was left out and the data dir's last choice was taken. */
  isTunnelRemembered: boolean;
  tunnelHost: string;
  subdomain: string | undefined;
  publicUrl: string | undefined;
  ngrokDomain: string | undefined;
  ngrokAttach: boolean;
  ngrokApi: string;
  sshDestination: string | undefined;
  sshOptions: readonly string[];
  cloudflaredTunnel: string | undefined;
}

export const DEFAULT_NGROK_API = 'http://127.0.0.1:4040';

function usage(code: ErrorCode, message: string, hint?: string): UserError {
  return new UserError(code, message, { exitCode: 2, ...(hint ? { hint } : {}) });
}

const DOMAIN = /^(?=.{4,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
/** `[user@]host` or `ssh://[user@]host[:port]`; never starting with `-`, which ssh would read as an option. */
const SSH_DESTINATION = /^(?:ssh:\/\/)?(?:[A-Za-z0-9._-]+@)?(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9a-fA-F:.]+\])(?::\d{1,5})?$/;
const SSH_OPTION = /^[A-Za-z][A-Za-z0-9]*=[^\s].*$/;

/**
 * The tunnel part of `start`'s config: flags first, then what the data dir
 * remembers of the last start (the provider, the ngrok domain, the ssh
 * server), then the defaults. `publicUrl` and `tunnelHost` come in parsed
 * (origin and URL checks are the caller's).
 */
export function resolveTunnelSettings(
  flags: TunnelFlags,
  parsed: { publicUrl: string | undefined; tunnelHost: string },
  state: ProjectState,
): TunnelSettings {
  const remembered = typeof state.tunnel === 'string' && (TUNNEL_PROVIDERS as readonly string[]).includes(state.tunnel) ? state.tunnel : undefined;
  const tunnel = flags.tunnel ?? remembered ?? DEFAULTS.tunnel;
  if (!(TUNNEL_PROVIDERS as readonly string[]).includes(tunnel)) {
    throw usage('invalid_tunnel', `--tunnel must be one of ${TUNNEL_PROVIDERS.join(', ')}, not "${tunnel}".`);
  }
  const cloudflaredTunnel = flags.cloudflaredTunnel;
  if (cloudflaredTunnel !== undefined) {
    if (tunnel !== 'cloudflared') throw usage('invalid_tunnel_flags', '--cloudflared-tunnel only goes with --tunnel cloudflared.');
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(cloudflaredTunnel)) {
      throw usage('invalid_tunnel_flags', `--cloudflared-tunnel takes a tunnel name (letters, digits, ".", "_", "-"), not "${cloudflaredTunnel}".`);
    }
    if (parsed.publicUrl === undefined) {
      throw usage(
        'invalid_tunnel_flags',
        '--cloudflared-tunnel needs --public-url: the hostname you routed to that tunnel in Cloudflare.',
        'For example: --tunnel cloudflared --cloudflared-tunnel dev --public-url https://dev.example.com',
      );
    }
  }
  if (parsed.publicUrl !== undefined && tunnel !== 'none' && cloudflaredTunnel === undefined) {
    throw usage(
      'public_url_needs_no_tunnel',
      '--public-url only goes with --tunnel none (or a named cloudflared tunnel).',
      'Pass --tunnel none --public-url <origin> to use a tunnel you run yourself.',
    );
  }
  const isNgrok = tunnel === 'ngrok' || tunnel === 'auto';
  const domainFlag = flags.domain?.trim().toLowerCase().replace(/^https:\/\//, '').replace(/\/$/, '');
  if (domainFlag !== undefined) {
    if (!isNgrok) throw usage('invalid_tunnel_flags', '--domain only goes with --tunnel ngrok (your static ngrok domain).');
    if (!DOMAIN.test(domainFlag)) throw usage('invalid_ngrok_domain', `--domain takes a hostname like my-shop.ngrok-free.dev, not "${flags.domain}".`);
  }
  if (flags.attach === true && tunnel !== 'ngrok') throw usage('invalid_tunnel_flags', '--attach only goes with --tunnel ngrok (the ngrok agent you already run).');
  const sshFlag = flags.ssh?.trim();
  if (sshFlag !== undefined && !SSH_DESTINATION.test(sshFlag)) {
    throw usage('invalid_ssh_destination', `--ssh takes a server like nokey@localhost.run or ssh://me@tunnel.example.com:2222, not "${flags.ssh}".`);
  }
  if (sshFlag !== undefined && tunnel !== 'ssh') throw usage('invalid_tunnel_flags', '--ssh only goes with --tunnel ssh.');
  const sshDestination = sshFlag ?? (tunnel === 'ssh' ? state.sshDestination : undefined);
  if (tunnel === 'ssh' && sshDestination === undefined) {
    throw usage('ssh_destination_required', '--tunnel ssh needs the server to tunnel through: --ssh <user@host>.', 'For example: --tunnel ssh --ssh nokey@localhost.run');
  }
  const sshOptions = flags.sshOption ?? [];
  const badOption = sshOptions.find((option) => !SSH_OPTION.test(option));
  if (badOption !== undefined) throw usage('invalid_ssh_option', `--ssh-option takes Key=Value (as ssh -o does), like ServerAliveInterval=10, not "${badOption}".`);
  const ngrokApi = (flags.ngrokApi ?? DEFAULT_NGROK_API).replace(/\/+$/, '');
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/.test(ngrokApi)) {
    throw usage('invalid_url_flag', `--ngrok-api must be the agent's local address like ${DEFAULT_NGROK_API}, not "${flags.ngrokApi}".`);
  }
  return {
    tunnel: tunnel as TunnelProviderName,
    isTunnelRemembered: flags.tunnel === undefined && remembered !== undefined,
    tunnelHost: parsed.tunnelHost,
    subdomain: flags.subdomain,
    publicUrl: parsed.publicUrl,
    ngrokDomain: domainFlag ?? (isNgrok ? state.ngrokDomain : undefined),
    ngrokAttach: flags.attach === true,
    ngrokApi,
    sshDestination,
    sshOptions,
    cloudflaredTunnel,
  };
}
