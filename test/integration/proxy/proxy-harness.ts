/**
 * What the proxy's integration tests share: a recording proxy that collects
 * its records (stopped when the test ends) and a plain node:http client that
 * sends exactly the headers it is given (fetch forbids hop-by-hop ones).
 */
import { refusedOrigin } from '../../helpers/refused-port.js';
import { request, type Agent, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { vi } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import {
  startRecordingProxy,
  type RecordingProxy,
  type RecordingProxyOptions,
  type RequestStartedInfo,
} from '../../../src/proxy/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';

export const TEST_SECRET = new Uint8Array(32).fill(7);
export const ROUTE = '/api/median';

export interface ProxyUnderTest {
  proxy: RecordingProxy;
  records: CallRecord[];
  started: RequestStartedInfo[];
  /** Waits until `count` records arrived; returns them all. */
  waitForRecords(count: number, timeoutMs?: number): Promise<CallRecord[]>;
}

export async function useRecordingProxy(
  options: Partial<Omit<RecordingProxyOptions, 'onRecord'>> & { target: string },
): Promise<ProxyUnderTest> {
  const records: CallRecord[] = [];
  const started: RequestStartedInfo[] = [];
  const proxy = useTeardown(
    await startRecordingProxy({
      route: ROUTE,
      onRequestStarted: (info) => started.push(info),
      ...options,
      onRecord: (record) => {
        records.push(record);
      },
    }),
    (p) => p.close(),
  );
  return {
    proxy,
    records,
    started,
    async waitForRecords(count, timeoutMs = 5_000) {
      await vi.waitFor(
        () => {
          if (records.length < count) throw new Error(`${records.length} of ${count} records so far`);
        },
        { timeout: timeoutMs, interval: 10 },
      );
      return records;
    },
  };
}

export interface SentAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One HTTP request with exactly these headers; no agent unless given. */
export function send(
  url: string,
  init: { method?: string; headers?: OutgoingHttpHeaders; body?: string | Buffer | Buffer[]; agent?: Agent | false } = {},
): Promise<SentAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, agent: init.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.once('error', reject);
    });
    req.once('error', reject);
    if (Array.isArray(init.body)) {
      for (const part of init.body) req.write(part);
      req.end();
    } else {
      req.end(init.body);
    }
  });
}

/** A tool call body as Median sends it. */
export function toolCallBody(tool: string, input: Record<string, unknown>, toolCallId = `call_${'a'.repeat(32)}`): string {
  return JSON.stringify({
    tool,
    toolCallId,
    input,
    context: { conversationId: 'conv_1', risk: 'low', visitor: { verified: true, externalId: 'u_1' } },
  });
}

/** A port nothing listens on (a server that was there and is gone). */
export async function closedPortTarget(): Promise<string> {
  return refusedOrigin();
}
