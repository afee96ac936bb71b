/**
 * A closed-loop load generator: `concurrency` workers over a keep-alive
 * node:http Agent, each sending its next request as soon as the previous
 * answer ended. Latency is from request start to the answer's last byte.
 * Bounded by count and by a deadline; only ever talks to the given origin.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { PreparedRequest } from './signed-calls.js';

export interface LoadOptions {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** How many requests to measure (after the warm-up). */
  requests: number;
  /** Requests sent first on the same connections, not measured. */
  warmup: number;
  concurrency: number;
  /** The request with this index (warm-up indexes come first: 0…warmup-1). */
  requestAt(index: number): PreparedRequest;
  /** The whole run (warm-up included) is abandoned after this. */
  deadlineMs: number;
  /** Keep every latency (default true); off for long runs that only need counts. */
  recordLatencies?: boolean;
  /** After each measured answer, with how many have been answered so far. */
  onAnswered?(answered: number): void;
}

export interface LoadResult {
  requests: number;
  ok: number;
  failed: number;
  /** Status code → count, for the measured requests; 0 counts transport errors. */
  statuses: Record<string, number>;
  firstError: string | undefined;
  durationMs: number;
  requestsPerSecond: number;
  /** One per measured request, in ms (empty unless recordLatencies). */
  latenciesMs: Float64Array;
}

interface Outcome {
  status: number;
  error?: string;
}

function sendOne(agent: Agent, url: URL, prepared: PreparedRequest): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(
      { host: url.hostname, port: url.port, method: prepared.method, path: prepared.path, headers: prepared.headers, agent },
      (res) => {
        res.on('data', () => {
          // The answer is only counted, not kept.
        });
        res.once('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.once('error', (error) => resolve({ status: 0, error: error.message }));
      },
    );
    req.once('error', (error) => resolve({ status: 0, error: error.message }));
    req.end(prepared.body);
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.origin);
  if (url.hostname !== '127.0.0.1') throw new Error(`The bench only sends to 127.0.0.1, not ${url.hostname}.`);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const record = options.recordLatencies ?? true;
  const latencies = new Float64Array(record ? options.requests : 0);
  const statuses: Record<string, number> = {};
  let firstError: string | undefined;
  let ok = 0;
  let failed = 0;
  let isPastDeadline = false;
  const deadline = setTimeout(() => (isPastDeadline = true), options.deadlineMs);
  deadline.unref();

  const phase = async (from: number, count: number, isMeasured: boolean): Promise<number> => {
    let next = 0;
    const started = performance.now();
    const worker = async (): Promise<void> => {
      while (next < count && !isPastDeadline) {
        const slot = next++;
        const prepared = options.requestAt(from + slot);
        const t0 = performance.now();
        const outcome = await sendOne(agent, url, prepared);
        if (!isMeasured) continue;
        if (record) latencies[slot] = performance.now() - t0;
        options.onAnswered?.(ok + failed + 1);
        statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
        if (outcome.status >= 200 && outcome.status < 300) ok += 1;
        else {
          failed += 1;
          firstError ??= outcome.error ?? `status ${outcome.status}`;
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    return performance.now() - started;
  };

  try {
    await phase(0, options.warmup, false);
    const durationMs = await phase(options.warmup, options.requests, true);
    if (isPastDeadline) throw new Error(`The load run passed its ${options.deadlineMs} ms deadline (${ok + failed} of ${options.requests} answered).`);
    return {
      requests: options.requests,
      ok,
      failed,
      statuses,
      firstError,
      durationMs,
      requestsPerSecond: (options.requests / durationMs) * 1000,
      latenciesMs: latencies,
    };
  } finally {
    clearTimeout(deadline);
    agent.destroy();
  }
}
