import { UserError } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { startTunnelProgram, type ProgramExit, type TunnelProgram } from '../platform/index.js';
import { programConnection } from './program-connection.js';
import { readSshLine } from './ssh-output.js';
import { TUNNEL_ERROR_CODES, openAbortedError } from './tunnel-errors.js';
import type { TunnelProvider } from './tunnel-provider.js';

export interface SshProviderOptions {
  /** The system `ssh` (found on PATH by the caller). */
  binary: string;
  /** `nokey@localhost.run`, `ssh://me@tunnel.example.com:2222`. */
  destination: string;
  /** The user's `-o Key=Value` options; they come first, so they win over ours (ssh takes the first value given). */
  options?: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
  /** The server must print the public URL within this. Default 20000 ms. */
  openTimeoutMs?: number;
  /** ServerAliveInterval in seconds (ssh exits after ServerAliveCountMax=2 unanswered ones). Default 15. */
  aliveIntervalS?: number;
  /** The open timeout runs on it (tests drive it); real time when left out. */
  clock?: Clock;
}

const KEPT_LINES = 12;

/**
 * `--tunnel ssh --ssh <server>`: the system `ssh` with `-R 80:127.0.0.1:<proxy>`
 * (localhost.run, serveo, pinggy, or the user's own server), the public URL
 * read from what the server prints. `BatchMode=yes`: ssh never asks a
 * question (a host key to accept, a password) — it fails, and the error
 * says what to run by hand. `ServerAliveInterval`: a server that stopped
 * answering ends ssh, which is a lost tunnel; a reopen connects again (a
 * free service hands out a new name: a hostname change the daemon heals).
 */
export function createSshProvider(options: SshProviderOptions): TunnelProvider {
  const logger = options.logger ?? silentLogger;
  const openTimeoutMs = options.openTimeoutMs ?? 20_000;
  const clock = options.clock ?? systemClock;
  const aliveIntervalS = options.aliveIntervalS ?? 15;
  return {
    name: 'ssh',
    async open(request, { signal } = {}) {
      if (signal?.aborted) throw openAbortedError();
      const userOptions = (options.options ?? []).flatMap((option) => ['-o', option]);
      const args = [
        ...userOptions,
        '-o', 'BatchMode=yes',
        '-o', 'ExitOnForwardFailure=yes',
        '-o', `ServerAliveInterval=${aliveIntervalS}`,
        '-o', 'ServerAliveCountMax=2',
        '-o', 'ConnectTimeout=10',
        '-T',
        '-R', `80:127.0.0.1:${request.localPort}`,
        '--',
        options.destination,
      ];
      const program = startTunnelProgram({ file: options.binary, args, env: options.env, clock });
      try {
        const url = await waitForUrl(program, signal);
        logger.debug('ssh tunnel open', { url, pid: program.pid });
        return programConnection(program, url, 'ssh exited');
      } catch (error) {
        await program.stop();
        throw error;
      }
    },
  };

  /** Waits for the line with the URL, ssh's exit, the open timeout (on the clock) or the abort, whichever comes first. */
  async function waitForUrl(program: TunnelProgram, signal: AbortSignal | undefined): Promise<string> {
    const lines: string[] = [];
    let url: string | undefined;
    let problem: 'host-key-unknown' | 'auth-failed' | 'forward-refused' | undefined;
    let isTimedOut = false;
    let wake: () => void = () => undefined;
    program.onLine((line) => {
      lines.push(line);
      if (lines.length > KEPT_LINES) lines.shift();
      const read = readSshLine(line);
      if (read.kind === 'url') url ??= read.url;
      else if (read.kind !== 'other') problem ??= read.kind;
      wake();
    });
    const timer = clock.setTimer(() => {
      isTimedOut = true;
      wake();
    }, openTimeoutMs);
    const onAbort = (): void => wake();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      while (!program.hasExited && url === undefined) {
        if (signal?.aborted) throw openAbortedError();
        if (isTimedOut) {
          throw new UserError(TUNNEL_ERROR_CODES.openTimeout, `${options.destination} printed no public URL within ${openTimeoutMs / 1000} s.`, {
            hint: `Run ssh -R 80:localhost:8080 ${options.destination} yourself to see what it prints; median-dev reads a line with the https:// address.`,
            details: { lines: [...lines] },
          });
        }
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), program.exited]);
      }
    } finally {
      timer.cancel();
      signal?.removeEventListener('abort', onAbort);
    }
    if (url !== undefined && !program.hasExited) return url;
    throw exitedError(await program.exited, lines, problem, options.destination);
  }
}

function exitedError(exit: ProgramExit, lines: readonly string[], problem: string | undefined, destination: string): UserError {
  if (exit.spawnErrorCode) {
    return new UserError(TUNNEL_ERROR_CODES.sshNotFound, `ssh could not be started (${exit.spawnErrorCode}).`, {
      hint: 'Install the OpenSSH client (it comes with macOS, most Linux systems and Windows 10+), or pick another provider with --tunnel.',
    });
  }
  const host = destination.replace(/^ssh:\/\//, '');
  if (problem === 'host-key-unknown') {
    return new UserError(TUNNEL_ERROR_CODES.sshHostKeyUnknown, `ssh does not know the host key of ${host}, and median-dev never accepts one for you.`, {
      hint: `Run ssh ${host} once in a terminal, check the key's fingerprint and accept it; then start again.`,
    });
  }
  if (problem === 'auth-failed') {
    return new UserError(TUNNEL_ERROR_CODES.sshAuthFailed, `${host} refused the login (${lines.find((line) => /Permission denied/i.test(line))?.trim() ?? 'permission denied'}).`, {
      hint: 'Check the user name and your SSH key (ssh-add -l); median-dev runs ssh with BatchMode, so it cannot ask for a password.',
    });
  }
  if (problem === 'forward-refused') {
    return new UserError(TUNNEL_ERROR_CODES.sshForwardRefused, `${host} refused to forward a port for the tunnel.`, {
      hint: 'The server may not allow remote forwarding (AllowTcpForwarding), or port 80 is taken there.',
    });
  }
  const last = lines.filter((line) => line.trim() !== '').slice(-3).join(' / ');
  return new UserError(TUNNEL_ERROR_CODES.sshExited, `ssh to ${host} exited (${exit.signal ?? `code ${exit.code}`}) before the tunnel opened${last ? `: ${last}` : '.'}`, {
    hint: `Run ssh -R 80:localhost:8080 ${host} yourself to see why, or pick another provider with --tunnel.`,
  });
}
