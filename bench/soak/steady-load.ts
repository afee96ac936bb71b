/**
 * Open-loop, steady-rate sending: fresh call i is due at start + i/rate
 * seconds, whatever happened to the others (an outage does not slow Median
 * down), with at most `concurrency` requests in flight. A call that failed is
 * retried (same toolCallId, re-signed) once no outage is going on and its
 * back-off has passed, at up to `rate` retries per second on top of the
 * fresh calls, until it is answered or `maxAttempts` were spent.
 */
import { CallLedger, CallState } from './call-ledger.js';
import type { AttemptOutcome, MedianSender } from './median-sender.js';

export interface AttemptReport {
  index: number;
  attempt: number;
  /** Date.now() when the request was sent and when its outcome came. */
  startedAt: number;
  endedAt: number;
  outcome: AttemptOutcome;
}

export interface SteadyLoadOptions {
  ledger: CallLedger;
  rate: number;
  concurrency: number;
  maxAttempts: number;
  sender: MedianSender;
  /** Where Median sends the call now (its endpoint's URL), or undefined when it has none. */
  target(): URL | undefined;
  /** While true, retries wait (fresh calls go on). */
  isOutage(): boolean;
  /** Before fresh call `index` is sent (the soak drops the tunnel and checks the store here). */
  beforeFresh(index: number): void;
  onAttempt(report: AttemptReport): void;
  signal: AbortSignal;
}

export interface SteadyLoadResult {
  /** Date.now() of the first and the last fresh send. */
  firstSendAt: number;
  lastFreshSendAt: number;
  /** Date.now() when every call was answered or given up. */
  doneAt: number;
  attempts: number;
  retries: number;
  /** The most a fresh call was sent after its due time (the concurrency bound or a busy loop delays it), ms. */
  maxLagMs: number;
  /** Fresh calls sent more than 100 ms late. */
  lateSends: number;
  maxInFlight: number;
}

const TICK_MS = 4;
const LATE_MS = 100;

function retryDelayMs(attempt: number): number {
  return Math.min(5_000, 250 * 2 ** Math.min(attempt - 1, 5));
}

export function runSteadyLoad(options: SteadyLoadOptions): Promise<SteadyLoadResult> {
  const { ledger, sender } = options;
  const size = ledger.size;
  const retryQueue: Array<{ index: number; notBefore: number }> = [];
  let retryHead = 0;
  let next = 0;
  let inFlight = 0;
  let open = size;
  let attempts = 0;
  let retries = 0;
  let maxLagMs = 0;
  let lateSends = 0;
  let maxInFlight = 0;
  let retryTokens = 0;
  const started = Date.now();
  let lastTick = started;
  let lastFreshSendAt = started;

  return new Promise<SteadyLoadResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve({ firstSendAt: started, lastFreshSendAt, doneAt: Date.now(), attempts, retries, maxLagMs, lateSends, maxInFlight });
    };
    const onAbort = (): void => finish(options.signal.reason instanceof Error ? options.signal.reason : new Error(String(options.signal.reason)));
    options.signal.addEventListener('abort', onAbort, { once: true });

    const send = (index: number): void => {
      const attempt = (ledger.attempts[index] = ledger.attempts[index]! + 1);
      ledger.state[index] = CallState.InFlight;
      attempts += 1;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const startedAt = Date.now();
      const target = options.target();
      const outcome: Promise<AttemptOutcome> = target
        ? sender.send(target, ledger.call(index))
        : Promise.resolve({ kind: 'failed', source: 'tunnel-server', status: null, reason: 'Median has no endpoint', latencyMs: 0 });
      void outcome.then((result) => {
        inFlight -= 1;
        const endedAt = Date.now();
        if (result.kind === 'answered') {
          ledger.state[index] = CallState.Answered;
          ledger.answeredAt[index] = endedAt;
          ledger.latencyMs[index] = result.latencyMs;
          open -= 1;
        } else if (attempt >= options.maxAttempts) {
          ledger.state[index] = CallState.GivenUp;
          open -= 1;
        } else {
          ledger.state[index] = CallState.WaitingRetry;
          retryQueue.push({ index, notBefore: endedAt + retryDelayMs(attempt) });
        }
        options.onAttempt({ index, attempt, startedAt, endedAt, outcome: result });
      });
    };

    const tick = (): void => {
      if (options.signal.aborted) return;
      const now = Date.now();
      const due = Math.min(size, Math.floor(((now - started) * options.rate) / 1000) + 1);
      while (next < due && inFlight < options.concurrency) {
        const lag = now - (started + (next * 1000) / options.rate);
        maxLagMs = Math.max(maxLagMs, lag);
        if (lag > LATE_MS) lateSends += 1;
        options.beforeFresh(next);
        send(next);
        lastFreshSendAt = now;
        next += 1;
      }
      retryTokens = Math.min(options.rate, retryTokens + ((now - lastTick) * options.rate) / 1000);
      lastTick = now;
      if (!options.isOutage()) {
        while (retryHead < retryQueue.length && inFlight < options.concurrency && retryTokens >= 1) {
          const head = retryQueue[retryHead]!;
          if (head.notBefore > now) break;
          retryHead += 1;
          retryTokens -= 1;
          retries += 1;
          send(head.index);
        }
        if (retryHead > 1024 && retryHead * 2 > retryQueue.length) {
          retryQueue.splice(0, retryHead);
          retryHead = 0;
        }
      }
      if (next >= size && open === 0) {
        finish();
        return;
      }
      timer = setTimeout(tick, TICK_MS);
    };
    tick();
  });
}
