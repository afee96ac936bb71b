import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { UserError } from '../shared/errors.js';
import { registrationDomains, registrationUrlProblem } from './registration-domains.js';
import { LOCALTUNNEL_PAGE_ADVICE, recognizeLocaltunnelPage } from './localtunnel-pages.js';
import { TUNNEL_ERROR_CODES } from './tunnel-errors.js';

/** What a localtunnel server answers to `GET <host>/<subdomain>` or `GET <host>/?new` (SPEC §1.4). */
export interface LocaltunnelRegistration {
  id: string;
  /** The TCP port to open the tunnel sockets to. */
  port: number;
  maxConnCount: number;
  /** Public origin, no trailing slash. */
  url: string;
  /** Where to open the sockets: the server's `ip` when it names one, else the tunnel host's hostname. */
  remoteHost: string;
}

const MAX_ANSWER_BYTES = 64 * 1024;
/** Sockets we open at most, whatever the server allows. */
const MAX_SOCKETS = 20;

/** Parses and checks `--tunnel-host`: an http(s) URL, returned without trailing slash. */
export function parseTunnelHost(host: string): URL {
  let url: URL;
  try {
    url = new URL(host);
  } catch (error) {
    throw invalidHost(host, error);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidHost(host);
  return url;
}

function invalidHost(host: string, cause?: unknown): UserError {
  return new UserError(TUNNEL_ERROR_CODES.invalidTunnelHost, `The tunnel host "${host}" is not an http(s) URL.`, {
    hint: 'Pass a server URL like https://localtunnel.me to --tunnel-host.',
    exitCode: 2,
    cause,
  });
}

/**
 * Asks the server for a tunnel, once. Rejects with a coded error on a non-2xx
 * answer, an answer that is not a registration, or a network error; `signal`
 * aborts it (the caller maps the abort reason).
 */
export function requestRegistration(
  host: URL,
  subdomain: string | undefined,
  signal: AbortSignal,
  domains: readonly string[] = [],
): Promise<LocaltunnelRegistration> {
  const base = host.href.endsWith('/') ? host.href : `${host.href}/`;
  const target = new URL(subdomain === undefined ? '?new' : encodeURIComponent(subdomain), base);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(target, { method: 'GET', headers: { accept: 'application/json' }, signal }, (res) => {
      readLimited(res).then(
        (text) => {
          try {
            resolve(parseAnswer(res.statusCode ?? 0, text, host, domains));
          } catch (error) {
            reject(error);
          }
        },
        (error: unknown) => reject(unreachable(host, error)),
      );
    });
    req.on('error', (error) => reject(signal.aborted ? signal.reason : unreachable(host, error)));
    req.end();
  });
}

function readLimited(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        res.destroy(new Error(`answer over ${MAX_ANSWER_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.on('error', reject);
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parseAnswer(status: number, text: string, host: URL, configured: readonly string[]): LocaltunnelRegistration {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined; // not JSON: judged below, by status first
  }
  if (status < 200 || status > 299) {
    const message = isRecord(body) && typeof body.message === 'string' ? body.message : undefined;
    throw new UserError(
      TUNNEL_ERROR_CODES.registrationRefused,
      `The tunnel server ${host.origin} refused the tunnel with HTTP ${status}${message ? `: ${message}` : ''}.`,
      {
        hint:
          status === 403
            ? 'Pick a --subdomain of 4 to 63 lowercase letters, digits and hyphens.'
            : recognizeLocaltunnelPage(status, text) === 'tunnel-unavailable'
              ? `The server is having an outage (503 Tunnel Unavailable). ${LOCALTUNNEL_PAGE_ADVICE['tunnel-unavailable'].fix}`
              : 'Try again in a moment, or pick another server with --tunnel-host.',
        details: { status, message },
      },
    );
  }
  if (isRecord(body)) throwIfUnusableUrl(body, host);
  const registration = isRecord(body) ? toRegistration(body, host) : undefined;
  if (!registration) {
    throw new UserError(TUNNEL_ERROR_CODES.badRegistration, `The tunnel server ${host.origin} did not answer like a localtunnel server.`, {
      hint: 'Check --tunnel-host: it should point at a localtunnel server.',
      details: { status, answer: text.slice(0, 200) },
    });
  }
  throwIfForeignUrl(registration, host, configured);
  return registration;
}

function toRegistration(body: Record<string, unknown>, host: URL): LocaltunnelRegistration | undefined {
  const { id, port, url, max_conn_count: maxConn, ip } = body;
  if (typeof id !== 'string' || id === '' || typeof url !== 'string') return undefined;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  let publicUrl: URL;
  try {
    publicUrl = new URL(url);
  } catch {
    return undefined; // an unparsable url is no registration
  }
  if (publicUrl.protocol !== 'https:' && publicUrl.protocol !== 'http:') return undefined;
  const count = typeof maxConn === 'number' && Number.isInteger(maxConn) && maxConn > 0 ? Math.min(maxConn, MAX_SOCKETS) : 1;
  return {
    id,
    port,
    maxConnCount: count,
    url: publicUrl.origin,
    remoteHost: typeof ip === 'string' && ip !== '' ? ip : host.hostname.replace(/^\[|\]$/g, ''),
  };
}

/**
 * localtunnel-server builds a tunnel's URL from the Host header it was
 * reached by (`https://<id>.<Host>`), not from its --domain: reached as
 * `http://127.0.0.1:18080` it answers `https://<id>.127.0.0.1:18080`, which
 * the WHATWG URL parser refuses (a hostname ending in a number) and nobody
 * can reach. Asking again gets the same answer, so this is final: one coded
 * error that names the fix. Other answers whose url does not parse stay
 * `tunnel_bad_registration`.
 */
function throwIfUnusableUrl(body: Record<string, unknown>, host: URL): void {
  const { id, url } = body;
  if (typeof id !== 'string' || id === '' || typeof url !== 'string' || URL.canParse(url)) return;
  const match = /^(https?):\/\/([^/?#]*)$/i.exec(url.replace(/\/$/, ''));
  const authority = match?.[2]?.toLowerCase() ?? '';
  if (!authority.startsWith(`${id.toLowerCase()}.`)) return;
  const reachedAs = authority.slice(id.length + 1);
  throw new UserError(
    TUNNEL_ERROR_CODES.unusableUrl,
    `The tunnel server ${host.origin} named the tunnel ${url}, an address nobody can reach: it names tunnels after the address it was reached by (${reachedAs}), so it has to be reached by its domain name.`,
    {
      hint: `Pass --tunnel-host https://<its domain> (the domain its tunnels live under, e.g. --tunnel-host https://tunnels.example.com) instead of ${host.origin}. median-dev does not retry: the server would answer the same.`,
      details: { url, reachedAs, isFinal: true },
    },
  );
}

/**
 * A tunnel server names the tunnel; a server that names a URL outside its own
 * domain (self-hosted and compromised, or a typo in --tunnel-host) could make
 * median-dev take any origin — the organisation's production one — as its
 * own, write it into the env file and state.json, and repoint endpoints
 * there. Such an answer is refused whole, before anything is written, and
 * final: the same server answers the same.
 */
function throwIfForeignUrl(registration: LocaltunnelRegistration, host: URL, configured: readonly string[]): void {
  const problem = registrationUrlProblem(new URL(registration.url), host, configured);
  if (problem === undefined) return;
  const domains = registrationDomains(host, configured);
  throw new UserError(
    TUNNEL_ERROR_CODES.badRegistration,
    `The tunnel server ${host.origin} named the tunnel ${registration.url}, and ${problem}: median-dev did not use it as its public URL, and wrote it nowhere.`,
    {
      hint:
        `A tunnel server names its tunnels https://<id>.<its domain>${domains.length > 0 ? ` (here: under ${domains.join(' or ')})` : ''}. ` +
        'Check --tunnel-host for a typo, and that the server there is one you trust; reach a self-hosted server by the domain its tunnels live under (e.g. --tunnel-host https://tunnels.example.com), or name that domain with --tunnel-domain <domain>. median-dev does not retry: the server would answer the same.',
      details: { url: registration.url, domains, isFinal: true },
    },
  );
}

function unreachable(host: URL, cause: unknown): UserError {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return new UserError(TUNNEL_ERROR_CODES.serverUnreachable, `Could not reach the tunnel server ${host.origin}${typeof code === 'string' ? ` (${code})` : ''}.`, {
    hint: 'Check your network, or pick another server with --tunnel-host.',
    cause,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
