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
} as const satisfies Record<string, ErrorCode>);

export type TunnelErrorCode = (typeof TUNNEL_ERROR_CODES)[keyof typeof TUNNEL_ERROR_CODES];

/** Codes that asking the same server again cannot fix: whoever retries opens stops and reports them once. */
const FINAL_CODES: ReadonlySet<string> = new Set([TUNNEL_ERROR_CODES.unusableUrl, TUNNEL_ERROR_CODES.invalidTunnelHost]);

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
