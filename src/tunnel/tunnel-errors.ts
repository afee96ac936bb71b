import { MedianDevError, UserError, type ErrorCode } from '../shared/errors.js';

/** Every error code src/tunnel produces, in one place. */
export const TUNNEL_ERROR_CODES = Object.freeze({
  invalidTunnelHost: 'invalid_tunnel_host',
  invalidPublicUrl: 'invalid_public_url',
  openTimeout: 'tunnel_open_timeout',
  openAborted: 'tunnel_open_aborted',
  serverUnreachable: 'tunnel_server_unreachable',
  registrationRefused: 'tunnel_registration_refused',
  badRegistration: 'tunnel_bad_registration',
  /** The server named the tunnel after an IP address it was reached by: final, never retried. */
  unusableUrl: 'tunnel_unusable_url',
  connectFailed: 'tunnel_connect_failed',
  closed: 'tunnel_closed',
  cloudflaredNotFound: 'cloudflared_not_found',
  cloudflaredRateLimited: 'cloudflared_rate_limited',
  cloudflaredExited: 'cloudflared_exited',
  sshNotFound: 'ssh_not_found',
  sshHostKeyUnknown: 'ssh_host_key_unknown',
  sshAuthFailed: 'ssh_auth_failed',
  sshForwardRefused: 'ssh_forward_refused',
  sshExited: 'ssh_exited',
  ngrokNotInstalled: 'ngrok_not_installed',
  ngrokAuthtokenMissing: 'ngrok_authtoken_missing',
  ngrokAuthtokenInvalid: 'ngrok_authtoken_invalid',
  ngrokDomainInvalid: 'ngrok_domain_invalid',
  ngrokUnreachable: 'ngrok_unreachable',
  ngrokFailed: 'ngrok_failed',
  ngrokAgentUnreachable: 'ngrok_agent_unreachable',
  ngrokAgentNoEndpoint: 'ngrok_agent_no_endpoint',
  ngrokAgentBypassesRecorder: 'ngrok_agent_bypasses_recorder',
} as const satisfies Record<string, ErrorCode>);

export type TunnelErrorCode = (typeof TUNNEL_ERROR_CODES)[keyof typeof TUNNEL_ERROR_CODES];

/** Codes that asking the same server again cannot fix: whoever retries opens stops and reports them once. */
const FINAL_CODES: ReadonlySet<string> = new Set([
  TUNNEL_ERROR_CODES.unusableUrl,
  TUNNEL_ERROR_CODES.invalidTunnelHost,
  // A program that is not installed, a host key nobody accepted, a key or token the service refused:
  // the same open would fail the same way until the user acts.
  TUNNEL_ERROR_CODES.cloudflaredNotFound,
  TUNNEL_ERROR_CODES.sshNotFound,
  TUNNEL_ERROR_CODES.sshHostKeyUnknown,
  TUNNEL_ERROR_CODES.sshAuthFailed,
  TUNNEL_ERROR_CODES.ngrokNotInstalled,
  TUNNEL_ERROR_CODES.ngrokAuthtokenMissing,
  TUNNEL_ERROR_CODES.ngrokAuthtokenInvalid,
  TUNNEL_ERROR_CODES.ngrokDomainInvalid,
]);

/** Whether retrying an open that failed with `error` would get the same answer (a wrong --tunnel-host). */

/** Whether retrying an open that failed with `error` would get the same answer (a wrong --tunnel-host). */
export function isFinalTunnelError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && FINAL_CODES.has(code);
}

export function openTimeoutError(host: string, timeoutMs: number): UserError {
  return new UserError(TUNNEL_ERROR_CODES.openTimeout, `The tunnel server ${host} did not open a tunnel within ${timeoutMs / 1000} s.`, {
    hint: 'Check your network, or pick another server with --tunnel-host (or --tunnel none with --public-url).',
    details: { host, timeoutMs },
  });
}

export function openAbortedError(): MedianDevError {
  return new MedianDevError(TUNNEL_ERROR_CODES.openAborted, 'Opening the tunnel was cancelled.');
}

export function closedError(): MedianDevError {
  return new MedianDevError(TUNNEL_ERROR_CODES.closed, 'The tunnel was closed.');
}
