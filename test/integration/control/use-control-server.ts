import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import {
  connectControl,
  startControlServer,
  type ControlClient,
  type ControlServer,
  type ControlServerOptions,
} from '../../../src/control/index.js';
import type { DaemonEvent, DaemonSnapshot } from '../../../src/events/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';

export async function useDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'median-dev-control-'));
  return useTeardown(dir, (d) => rm(d, { recursive: true, force: true }));
}

export function makeSnapshot(overrides: Partial<DaemonSnapshot> = {}): DaemonSnapshot {
  return {
    version: '0.1.0',
    proxyUrl: 'http://127.0.0.1:4141',
    tunnel: { state: 'open', url: 'https://quiet-fox.loca.lt' },
    toolsUrl: 'https://quiet-fox.loca.lt/api/median',
    endpoint: null,
    child: { state: 'none' },
    keyFingerprint: '…abcd',
    isDemo: false,
    callCount: 0,
    records: [],
    ...overrides,
  };
}

export function logEvent(n: number): DaemonEvent {
  return { event: 'log', at: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(), level: 'info', message: `event ${n}` };
}

export async function useControlServer(
  overrides: Partial<ControlServerOptions> = {},
): Promise<{ server: ControlServer; dataDir: string }> {
  const dataDir = overrides.dataDir ?? (await useDataDir());
  const server = await startControlServer({
    dataDir,
    pid: process.pid,
    instanceId: 'instance-a',
    proxyUrl: 'http://127.0.0.1:4141',
    snapshot: () => makeSnapshot(),
    handleCommand: async () => ({ ok: true }),
    ...overrides,
  });
  useTeardown(server, (s) => s.close());
  return { server, dataDir };
}

export async function useControlClient(server: ControlServer, options: { heartbeatTimeoutMs?: number } = {}): Promise<ControlClient> {
  const client = await connectControl({ port: server.port, token: server.token, ...options });
  return useTeardown(client, (c) => c.close());
}

export interface RawClient {
  ws: WebSocket;
  /** Parsed text frames, in arrival order. */
  frames: Record<string, unknown>[];
  closed: Promise<{ code: number; reason: string }>;
}

/** A plain `ws` client that can send anything, for the frames our client never sends. */
export async function useRawClient(server: ControlServer, options: { autoPong?: boolean } = {}): Promise<RawClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/`, {
    headers: { authorization: `Bearer ${server.token}` },
    autoPong: options.autoPong ?? true,
  });
  useTeardown(ws, (socket) => socket.terminate());
  const frames: Record<string, unknown>[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data)) as Record<string, unknown>));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, frames, closed };
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Resolves with the promise's rejection (fails when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<{ code?: string; hint?: string; details?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; hint?: string };
  }
  throw new Error('expected a rejection');
}
