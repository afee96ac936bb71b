/**
 * An open-loop sender at a steady rate: request i leaves at start + i/rate
 * seconds whatever happened to the others (as Median's traffic does), over a
 * keep-alive agent, at most `maxInFlight` at once (a request due while that
 * many are out leaves as soon as one ends, and counts as late). Latency is
 * from the request's own start to its answer's last byte.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { PreparedRequest } from './signed-calls.js';

export interface SteadyRateResult {
  sent: number;
  failed: number;
  firstError: string | undefined;
  /** Requests that left more than 10 ms after their time. */
  late: number;
  durationMs: number;
  latenciesMs: Float64Array;
}

export async function runSteadyRate(options: {
  origin: string;
  rate: number;
  count: number;
  maxInFlight: number;
  requestAt(index: number): PreparedRequest;
}): Promise<SteadyRateResult> {
  const url = new URL(options.origin);
  if (url.hostname !== '127.0.0.1') throw new Error(`The bench only sends to 127.0.0.1, not ${url.hostname}.`);
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxInFlight, maxFreeSockets: options.maxInFlight });
  const latencies = new Float64Array(options.count);
  let failed = 0;
  let late = 0;
  let firstError: string | undefined;
  let next = 0;
  let inFlight = 0;
  let answered = 0;
  const started = performance.now();
  try {
    await new Promise<void>((resolve) => {
      const sendOne = (index: number): void => {
        inFlight += 1;
        const prepared = options.requestAt(index);
        const t0 = performance.now();
        const done = (error?: string): void => {
          latencies[index] = performance.now() - t0;
          inFlight -= 1;
          answered += 1;
          if (error !== undefined) {
            failed += 1;
            firstError ??= error;
          }
          if (answered === options.count) resolve();
          else pump();
        };
        const req = request({ host: url.hostname, port: url.port, method: prepared.method, path: prepared.path, headers: prepared.headers, agent }, (res) => {
          res.on('data', () => undefined);
          res.once('end', () => done(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300 ? undefined : `status ${res.statusCode}`));
          res.once('error', (error) => done(error.message));
        });
        req.once('error', (error) => done(error.message));
        req.end(prepared.body);
      };
      let timer: NodeJS.Timeout | undefined;
      const pump = (): void => {
        const now = performance.now();
        const due = Math.min(options.count, Math.floor(((now - started) * options.rate) / 1000) + 1);
        while (next < due && inFlight < options.maxInFlight) {
          if (now - (started + (next * 1000) / options.rate) > 10) late += 1;
          sendOne(next);
          next += 1;
        }
        if (next < options.count && timer === undefined) {
          const wait = Math.max(0, started + (next * 1000) / options.rate - performance.now());
          timer = setTimeout(() => {
            timer = undefined;
            pump();
          }, wait);
        }
      };
      pump();
    });
  } finally {
    agent.destroy();
  }
  return { sent: options.count, failed, firstError, late, durationMs: performance.now() - started, latenciesMs: latencies };
}
