import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertMedianKey, deriveToolSecret, type Endpoint } from '../median/index.js';
import { MedianDevError, silentLogger, type Logger } from '../shared/index.js';
import { createApiHandler } from './api-routes.js';
import { resolveLimits, type EmulatorLimits } from './emulator-limits.js';
import { createEndpointRegistry } from './endpoint-registry.js';
import { fetchManifest } from './manifest-fetch.js';
import type { HostResolver } from './outbound-request.js';
import { createRateLimiter } from './rate-limiter.js';
import { createToolCaller, type CallToolRequest, type EmulatedCall, type EmulatedDiagnostics } from './tool-caller.js';
import { startTraffic, type Traffic, type TrafficOptions } from './traffic.js';

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** The one accepted MEDIAN_KEY; generated (`median_key_` + 32 alphanumerics) when absent. */
  key?: string;
  /** Reach public (tunnel) hostnames on loopback over plain HTTP, with the original Host header. */
  resolve?: HostResolver;
  limits?: Partial<EmulatorLimits>;
  logger?: Logger;
  now?: () => number;
}

export interface Emulator {
  /** The API base URL, e.g. `http://127.0.0.1:54321` (use as MEDIAN_API_URL). */
  readonly url: string;
  readonly key: string;
  endpoints(): Endpoint[];
  addResolver(resolve: HostResolver): void;
  callTool(request: CallToolRequest): Promise<EmulatedCall>;
  diagnostics(endpointUrl?: string): Promise<EmulatedDiagnostics>;
  startTraffic(options: TrafficOptions): Traffic;
  close(): Promise<void>;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `median_key_` + 32 random alphanumerics. */
export function generateMedianKey(): string {
  const bytes = randomBytes(32);
  return `median_key_${Array.from(bytes, (b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('')}`;
}

function newEndpointId(): string {
  return `tep_${randomBytes(12).toString('hex')}`;
}

/**
 * The Median cloud on loopback (SPEC §3): the API of §1.3, signed syncs with
 * every manifest rule, and signed tool calls. Resolves once listening.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? silentLogger;
  const limits = resolveLimits(options.limits);
  const key = options.key ?? generateMedianKey();
  assertMedianKey(key);
  const secret = deriveToolSecret(key);
  const resolvers: HostResolver[] = options.resolve ? [options.resolve] : [];
  const closing = new AbortController();

  const registry = createEndpointRegistry({
    limits,
    now,
    logger,
    newId: newEndpointId,
    syncRate: createRateLimiter(limits.syncRate, now),
    fetchManifest: (url) =>
      fetchManifest({
        url,
        secret,
        now,
        timeoutMs: limits.syncTimeoutMs,
        maxManifestBytes: limits.maxManifestBytes,
        resolvers,
        signal: closing.signal,
      }),
  });
  const caller = createToolCaller({ registry, secret, limits, now, resolvers, signal: closing.signal, logger });
  const server: Server = createServer(
    createApiHandler({ key, registry, connectRate: createRateLimiter(limits.connectRate, now), logger }),
  );

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        new MedianDevError(
          error.code === 'EADDRINUSE' ? 'port_in_use' : 'emulator_listen_failed',
          error.code === 'EADDRINUSE'
            ? `Port ${options.port ?? 0} on ${host} is already in use. Pick another with --port.`
            : `The emulator could not listen on ${host}:${options.port ?? 0} (${error.code ?? error.message}).`,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.info('emulator: listening', { url });

  let closed: Promise<void> | undefined;
  return {
    url,
    key,
    endpoints: () => registry.list(),
    addResolver(resolve) {
      resolvers.push(resolve);
    },
    callTool: (request) => caller.callTool(request),
    diagnostics: (endpointUrl) => caller.diagnostics(endpointUrl),
    startTraffic: (trafficOptions) =>
      startTraffic(trafficOptions, { registry, callTool: caller.callTool, logger, closed: closing.signal }),
    close() {
      closed ??= (async () => {
        closing.abort();
        await Promise.allSettled([
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
          registry.settled(),
        ]);
      })();
      return closed;
    },
  };
}
