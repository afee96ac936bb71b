import type { Socket } from 'node:net';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';

/** What `startTunnel` asks a provider for. */
export interface TunnelOpenRequest {
  /** The local port requests are piped to (on 127.0.0.1). */
  localPort: number;
  /**
   * Given, each tunnel socket is handed to this (the proxy's HTTP server,
   * `server.emit('connection', socket)`) once it connected, instead of being
   * piped into a second loopback connection to `localPort`: one hop less.
   */
  handOff?: (socket: Socket) => void;
  /** The subdomain asked for; the server may hand out another (a hostname change). */
  subdomain?: string;
}

/** One open tunnel. It never reopens itself: `startTunnel` does, after `onLost`. */
export interface TunnelConnection {
  /** Public origin, no trailing slash: `https://<subdomain>.loca.lt`. */
  readonly url: string;
  /** The subdomain the server granted, when the provider has one. */
  readonly subdomain: string | undefined;
  /** Live sockets to the tunnel server, or undefined when the provider has none. */
  socketCount(): number | undefined;
  /**
   * Bytes the tunnel server sent us so far, or undefined when the provider
   * cannot tell. Growing between two probes, it proves the tunnel carries
   * requests, so a busy tunnel need not be probed.
   */
  bytesReceived(): number | undefined;
  /** Called at most once, when the connection can no longer carry requests (also when subscribed after that). */
  onLost(listener: (reason: string) => void): void;
  /** Idempotent; leaves no socket or timer behind. */
  close(): Promise<void>;
}

export interface TunnelProvider {
  readonly name: string;
  /**
   * Opens a tunnel once, without retrying: resolves when it carries requests,
   * rejects with a coded error (timeout, abort, refusal, unreachable server).
   */
  open(request: TunnelOpenRequest, options?: { signal?: AbortSignal }): Promise<TunnelConnection>;
}

export interface LocaltunnelProviderOptions {
  /** The localtunnel server, e.g. https://localtunnel.me (`--tunnel-host`). */
  host: string;
  /** Domains the server was configured to name tunnels under (`--tunnel-domain`), besides its own. */
  domains?: readonly string[];
  logger?: Logger;
  /** Registration plus the first socket must finish in this time. Default 15000 ms. */
  openTimeoutMs?: number;
  /** With every socket gone this long, the tunnel is lost. Default 3000 ms (the daemon promises 5 s). */
  lostAfterMs?: number;
  /** Backoff of single socket reconnects. Default 1 s doubling to 10 s. */
  socketRetryBaseMs?: number;
  socketRetryMaxMs?: number;
  /** Where requests are sent. Default 127.0.0.1 (localhost may resolve to ::1). */
  localHost?: string;
  random?: () => number;
  /** The open timeout, the lost window and the socket retries run on it. Default systemClock. */
  clock?: Clock;
}
