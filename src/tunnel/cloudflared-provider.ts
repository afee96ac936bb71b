import { UserError } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { pause } from '../shared/delay.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { startTunnelProgram, type ProgramExit, type TunnelProgram } from '../platform/index.js';
import { quickTunnelHostname, readCloudflaredLine, readyConnections } from './cloudflared-output.js';
import { getLocalJson } from './local-json.js';
import { programConnection } from './program-connection.js';
import { TUNNEL_ERROR_CODES, openAbortedError } from './tunnel-errors.js';
import type { TunnelProvider } from './tunnel-provider.js';

export interface CloudflaredProviderOptions {
  /** The user's `cloudflared` (found on PATH by the caller; never downloaded). */
  binary: string;
  /** The environment cloudflared runs with (the CLI's). */
  env: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
  /**
   * A named tunnel (`--cloudflared-tunnel <name>`) whose hostname the user
   * routed in Cloudflare (`--public-url`): `cloudflared tunnel run`, a URL that
   * never changes. Left out: a quick tunnel on trycloudflare.com.
   */
  namedTunnel?: { name: string; publicUrl: string };
  /** The hostname and the first edge connection must come within this. Default 30000 ms. */
  openTimeoutMs?: number;
  /** How often the metrics server is asked while opening. Default 200 ms. */
  pollMs?: number;
  /**
   * After Cloudflare refused to create a quick tunnel (1015/429), the next
   * open waits until this long has passed since, instead of asking again at
   * once and prolonging the limit. Default 60000 ms.
   */
  rateLimitPauseMs?: number;
  /** The open timeout, the polls of the metrics server and the rate limit's pause run on it (tests drive it); real time when left out. */
  clock?: Clock;
}

/** Lines kept for the message of a cloudflared that exited while opening. */
const KEPT_LINES = 12;

/**
 * `--tunnel cloudflared`: the user's own `cloudflared` as a child,
 * `cloudflared tunnel --no-autoupdate --loglevel info --metrics 127.0.0.1:0 --url http://127.0.0.1:<proxy>`.
 * cloudflared binds a port of its own for its metrics server and says which
 * on stderr, which only median-dev reads: a port picked beforehand and handed
 * over was free for anyone to take in between (cloudflared asks Cloudflare
 * for the quick tunnel first, about a second), and a process listening there
 * could have answered `/quicktunnel` with a hostname of its own, to which the
 * endpoint would then send Median's calls. `--loglevel info` keeps the lines
 * read here when a config file or TUNNEL_LOGLEVEL asks for fewer. The hostname
 * comes from the metrics server's `GET /quicktunnel` (the box line on stderr
 * as the fallback), readiness from `GET /ready` (a registered edge connection
 * as the fallback). A cloudflared that exits is a lost
 * tunnel; a reopen starts a new one, whose quick-tunnel hostname is new: a
 * hostname change the daemon heals.
 */
export function createCloudflaredProvider(options: CloudflaredProviderOptions): TunnelProvider {
  const logger = options.logger ?? silentLogger;
  const openTimeoutMs = options.openTimeoutMs ?? 30_000;
  const pollMs = options.pollMs ?? 200;
  const rateLimitPauseMs = options.rateLimitPauseMs ?? 60_000;
  const clock = options.clock ?? systemClock;
  let rateLimitedAt: number | undefined;

  return {
    name: 'cloudflared',
    async open(request, { signal } = {}) {
      if (signal?.aborted) throw openAbortedError();
      if (rateLimitedAt !== undefined) {
        const waitMs = rateLimitedAt + rateLimitPauseMs - clock.now();
        if (waitMs > 0) {
          logger.info('cloudflared: waiting out Cloudflare’s limit on new quick tunnels', { waitMs });
          await pause(waitMs, signal, clock);
          if (signal?.aborted) throw openAbortedError();
        }
      }
      const local = `http://127.0.0.1:${request.localPort}`;
      const own = ['--no-autoupdate', '--loglevel', 'info', '--metrics', '127.0.0.1:0'];
      const args = options.namedTunnel ? ['tunnel', ...own, 'run', '--url', local, options.namedTunnel.name] : ['tunnel', ...own, '--url', local];
      const program = startTunnelProgram({ file: options.binary, args, env: options.env, clock });
      try {
        const url = await waitUntilReady(program, signal);
        rateLimitedAt = undefined;
        logger.debug('cloudflared open', { url, pid: program.pid });
        return programConnection(program, url, 'cloudflared exited');
      } catch (error) {
        if ((error as { code?: unknown }).code === TUNNEL_ERROR_CODES.cloudflaredRateLimited) rateLimitedAt = clock.now();
        await program.stop();
        throw error;
      }
    },
  };

  async function waitUntilReady(program: TunnelProgram, signal: AbortSignal | undefined): Promise<string> {
    const lines: string[] = [];
    /** The metrics server, once cloudflared said where it listens; the first address said counts. */
    let metricsOrigin: string | undefined;
    let boxUrl: string | undefined;
    let isRegistered = false;
    let isRateLimited = false;
    program.onLine((line) => {
      lines.push(line);
      if (lines.length > KEPT_LINES) lines.shift();
      const read = readCloudflaredLine(line);
      if (read.kind === 'url') boxUrl = read.url;
      else if (read.kind === 'metrics') metricsOrigin ??= read.origin;
      else if (read.kind === 'registered') isRegistered = true;
      else if (read.kind === 'rate-limited') isRateLimited = true;
    });
    const deadline = clock.now() + openTimeoutMs;
    let hostname: string | undefined;
    while (!program.hasExited) {
      if (signal?.aborted) throw openAbortedError();
      if (clock.now() >= deadline) {
        throw new UserError(TUNNEL_ERROR_CODES.openTimeout, `cloudflared did not open a tunnel within ${openTimeoutMs / 1000} s.`, {
          hint: 'Check your network (cloudflared needs outbound connections to Cloudflare on port 7844), or pick another provider with --tunnel.',
          details: { lines: [...lines] },
        });
      }
      if (options.namedTunnel) {
        hostname = new URL(options.namedTunnel.publicUrl).host;
      } else if (!hostname) {
        const answer = metricsOrigin ? await getLocalJson(`${metricsOrigin}/quicktunnel`, { timeoutMs: 1_000 }) : undefined;
        hostname = (answer?.kind === 'answered' ? quickTunnelHostname(answer.body) : undefined) ?? (boxUrl ? new URL(boxUrl).host : undefined);
      }
      if (hostname) {
        const ready = metricsOrigin ? await getLocalJson(`${metricsOrigin}/ready`, { timeoutMs: 1_000 }) : undefined;
        const isReady = ready?.kind === 'answered' ? readyConnections(ready.status, ready.body) > 0 : isRegistered;
        if (isReady && !program.hasExited) return options.namedTunnel ? new URL(options.namedTunnel.publicUrl).origin : `https://${hostname}`;
      }
      await Promise.race([pause(pollMs, signal, clock), program.exited]);
    }
    throw exitedError(await program.exited, lines, isRateLimited);
  }
}

function exitedError(exit: ProgramExit, lines: readonly string[], isRateLimited: boolean): UserError {
  if (exit.spawnErrorCode === 'ENOENT' || exit.spawnErrorCode === 'EACCES') {
    return new UserError(TUNNEL_ERROR_CODES.cloudflaredNotFound, `cloudflared could not be started (${exit.spawnErrorCode}).`, {
      hint: 'Install cloudflared (brew install cloudflared, or the package from Cloudflare’s site) so it is on PATH, or pick another provider with --tunnel.',
    });
  }
  if (isRateLimited) {
    return new UserError(TUNNEL_ERROR_CODES.cloudflaredRateLimited, 'Cloudflare refused a new quick tunnel: too many were created from this address (error 1015, 429 Too Many Requests).', {
      hint: 'median-dev asks again in a minute. A named tunnel (--cloudflared-tunnel <name> --public-url <origin>) or --tunnel ngrok with a static domain has no such limit.',
    });
  }
  const last = lines.filter((line) => line.trim() !== '').slice(-3).join(' / ');
  return new UserError(TUNNEL_ERROR_CODES.cloudflaredExited, `cloudflared exited (${exit.signal ?? `code ${exit.code}`}) before the tunnel opened${last ? `: ${last}` : '.'}`, {
    hint: 'Run the same cloudflared command yourself to see why, or pick another provider with --tunnel.',
  });
}
