import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallRecord } from '../../src/median/index.js';
import type { DaemonEvent } from '../../src/events/index.js';
import type { ReplayBody } from '../../src/events/inspector-api.js';
import { startInspectorServer, type InspectorServer, type InspectorServerOptions } from '../../src/inspector-server/index.js';
import { parseFilter, recordMatches } from '../../src/median/index.js';
import { INSPECTOR_SESSION_HEADER, MedianDevError } from '../../src/shared/index.js';
import { makeSnapshot } from './record-fixtures.js';
import { useTeardown } from './use-teardown.js';

export interface InspectorWorld {
  server: InspectorServer;
  /** Records the store holds, oldest first. */
  records: CallRecord[];
  /** Emits a daemon event as the daemon's hub would. */
  emit(event: DaemonEvent): void;
  replays: ReplayBody[];
}

/** A page like the built one: an HTML file and a script file, served from memory. */
export function writeTestAssets(): string {
  const dir = mkdtempSync(join(tmpdir(), 'median-dev-inspector-assets-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>median-dev</title><script type="module" src="/assets/main.js"></script>');
  writeFileSync(join(dir, 'assets', 'main.js'), 'document.title = "inspector";');
  return dir;
}

/**
 * The inspector server on 127.0.0.1 port 0 over in-memory daemon data (the
 * store is an array, events come from `emit`), closed when the test ends.
 * Its list is read before it resolves, unless `cold` (as in a daemon: read
 * when a browser first asks).
 */
export async function useInspectorServer(records: CallRecord[] = [], overrides: Partial<InspectorServerOptions> = {}, options: { cold?: boolean } = {}): Promise<InspectorWorld> {
  const listeners = new Set<(event: DaemonEvent) => void>();
  const replays: ReplayBody[] = [];
  const world = { records, replays } as InspectorWorld;
  const server = await startInspectorServer({
    port: 0,
    assetDir: writeTestAssets(),
    snapshot: () => makeSnapshot(world.records.slice(-5)),
    events: {
      on(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    async *scanRecords() {
      for (let i = world.records.length - 1; i >= 0; i--) yield world.records[i]!;
    },
    async findRecord(id) {
      const found = [...world.records].reverse().find((r) => r.id === id || r.toolCallId === id);
      if (!found) throw new MedianDevError('call_not_found', `No recorded call has the id "${id}".`);
      return found;
    },
    matcherFor(text) {
      const filter = parseFilter(text);
      return filter ? (record) => recordMatches(record, filter) : null;
    },
    async replay(body) {
      replays.push(body);
      return { toolCallId: body.id, replayOf: body.id, status: 200, durationMs: 3, verdict: 'answered' };
    },
    curlOf: (record) => `curl -X POST http://127.0.0.1:3000/api/median --data-binary '${record.request.body}'`,
    harOf: (list) => ({ log: { version: '1.2', entries: list.map((r) => ({ _recordId: r.id })) } }),
    readTools: async () => [{ name: 'lookup_order', risk: 'low', inputSchema: { type: 'object', properties: {}, additionalProperties: false } }],
    ...overrides,
  });
  world.server = useTeardown(server, (s) => s.close());
  world.emit = (event) => {
    for (const listener of listeners) listener(event);
  };
  if (!options.cold) await server.loaded;
  return world;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with exactly these headers (Host included), as any client could send. */
export function rawRequest(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: { host: `127.0.0.1:${port}`, ...options.headers }, setHost: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** What the page sends with every request once it has a session. */
export type SessionHeaders = Record<typeof INSPECTOR_SESSION_HEADER, string>;

/** Spends a one-time link as the page it opens does (a POST from its own origin): the session id, or the refusal. */
export function exchangeLink(server: InspectorServer, link: string): Promise<RawAnswer> {
  const token = new URL(link).searchParams.get('token') ?? '';
  return rawRequest(server.port, {
    method: 'POST',
    path: '/api/session',
    headers: { origin: server.url, 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
}

/** Spends a fresh one-time token: the session header the page would now send. */
export async function openSession(server: InspectorServer): Promise<SessionHeaders> {
  const answer = await exchangeLink(server, server.newLink());
  if (answer.status !== 200) throw new Error(`no session: ${answer.status} ${answer.body}`);
  return { [INSPECTOR_SESSION_HEADER]: (JSON.parse(answer.body) as { session: string }).session };
}
