import { refusedPort } from './refused-port.js';
import { createMedianApiClient, type MedianApiClient } from '../../src/median/index.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { readBody, useHttpServer } from './use-http-server.js';
import { useTeardown } from './use-teardown.js';

export interface TestEmulator {
  emulator: Emulator;
  /** An API client holding the emulator's key. */
  client: MedianApiClient;
  /** An API client sending another key (or none: `''`). */
  clientWithKey(key: string): MedianApiClient;
}

/** Short limits so no test waits for the cloud's 10 s. */
export const TEST_EMULATOR_LIMITS = Object.freeze({ syncTimeoutMs: 1_000, callTimeoutMs: 1_000, diagnosticsTimeoutMs: 1_000, reviewerDelayMs: 20 });

const LOOPBACK_NAMES = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/i;

/**
 * The Median emulator on 127.0.0.1 port 0, closed when the test ends. Tests
 * stay offline: a hostname that no resolver maps (`options.resolve`, or one
 * added later with `emulator.addResolver`) and that is not loopback is sent
 * to a closed loopback port, so syncs and calls to it find nobody there, with
 * no DNS look-up. That fallback is the emulator's `fallbackResolve`, asked
 * after every other resolver, so resolvers added after start are reached.
 */
export async function useEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const offline = { host: '127.0.0.1', port: await refusedPort() };
  const fallbackResolve = options.fallbackResolve ?? ((hostname: string) => (LOOPBACK_NAMES.test(hostname) ? undefined : offline));
  const emulator = useTeardown(
    await startEmulator({ ...options, fallbackResolve, limits: { ...TEST_EMULATOR_LIMITS, ...options.limits } }),
    (e) => e.close(),
  );
  const clientWithKey = (key: string) => createMedianApiClient({ baseUrl: emulator.url, key, timeoutMs: 5_000 });
  return { emulator, client: clientWithKey(emulator.key), clientWithKey };
}

export interface ServedAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON, a string as it is. */
  body?: unknown;
  /** Wait this long before answering (for time-limit tests). */
  delayMs?: number;
}

export interface SeenRequest {
  method: string;
  path: string;
  host: string | undefined;
  signature: string | undefined;
  body: string;
}

export interface ManifestServer {
  origin: string;
  /** `<origin><path>`. */
  url(path: string): string;
  /** What `path` answers from now on (default: 404). */
  serve(path: string, answer: ServedAnswer): void;
  requests: SeenRequest[];
}

/**
 * A real HTTP server on 127.0.0.1 port 0 standing in for a user's route: it
 * answers each path with whatever the test set (good or bad manifests,
 * redirects, pages, silence) and records what the emulator sent.
 */
export async function useManifestServer(): Promise<ManifestServer> {
  const answers = new Map<string, ServedAnswer>();
  const requests: SeenRequest[] = [];
  const server = await useHttpServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    const path = new URL(req.url ?? '/', 'http://x.invalid').pathname;
    const signature = req.headers['median-signature'];
    requests.push({ method: req.method ?? '', path, host: req.headers.host, signature: typeof signature === 'string' ? signature : undefined, body });
    const answer = answers.get(path) ?? { status: 404, body: { error: { code: 'not_found', message: 'no such path' } } };
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs).unref());
    if (res.destroyed) return;
    const text = typeof answer.body === 'string' ? answer.body : answer.body === undefined ? '' : JSON.stringify(answer.body);
    res.writeHead(answer.status ?? 200, {
      ...(typeof answer.body === 'string' ? {} : { 'content-type': 'application/json' }),
      ...answer.headers,
    });
    res.end(text);
  });
  return {
    origin: server.url,
    url: (path) => `${server.url}${path}`,
    serve: (path, answer) => void answers.set(path, answer),
    requests,
  };
}

/** A valid manifest serving tools with these names (low risk, one optional field). */
export function manifestOf(...names: string[]): { version: 1; tools: unknown[] } {
  return {
    version: 1,
    tools: names.map((name) => ({
      name,
      description: `The ${name} tool.`,
      risk: 'low',
      inputSchema: { type: 'object', properties: { orderNumber: { type: 'string' } }, additionalProperties: false },
    })),
  };
}
