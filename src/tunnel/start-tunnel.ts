// Over 300 lines: startTunnel is one state machine (open, probe, lose, reopen, wake, close) whose
// transitions share its state; the probe call and the wake clock live in probe-once.ts and wake-detector.ts.
import type { Socket } from 'node:net';
import { systemClock, type Clock, type ClockTimer } from '../shared/clock.js';
import { codeOf } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { HEALTH_PATH, judgeHealthProbe, nextProbeStrikes, type HealthProbe } from './health-probe.js';
import { openFirst } from './open-first.js';
import { describeMiss, probeOnce } from './probe-once.js';
import { startWakeDetector } from './wake-detector.js';
import { isFinalTunnelError } from './tunnel-errors.js';
import { createTunnelBackoff, type TunnelBackoff } from './reconnect-delay.js';
import type { TunnelDownReason, TunnelEvent, TunnelEventOf, TunnelEventType } from './tunnel-events.js';
import type { TunnelConnection, TunnelProvider } from './tunnel-provider.js';

export interface StartTunnelOptions {
  provider: TunnelProvider;
  /** The proxy's port on 127.0.0.1. */
  localPort: number;
  /** See TunnelOpenRequest.handOff: tunnel sockets go straight to the proxy's HTTP server. */
  handOff?: (socket: Socket) => void;
  /**
   * Asked for on every open and reopen (the project's stable name), so a name
   * that was taken comes back once it is free again.
   */
  subdomain?: string;
  logger?: Logger;
  /** Gets every event, the first `opened` included (it happens before startTunnel resolves). */
  onEvent?: (event: TunnelEvent) => void;
  /**
   * Probes `<url>/__median-dev/health` through the public URL; left out, no
   * probing. An idle tunnel is probed every `probeIntervalMs`; a tunnel that
   * received bytes since the last probe proved itself and is not probed.
   */
  probe?: HealthProbe;
  /**
   * Default 24000 ms: an idle tunnel costs the tunnel server 2.5 requests a
   * minute, not 30. Between probes only a counter is read (every
   * `probeLookMs`): bytes received since the last look prove the tunnel was
   * alive at that look, so a busy tunnel is never probed (a look every half
   * interval is enough for that, and an idle tunnel is looked at once between
   * two probes). Worst case to notice
   * a wedged tunnel: the wedge right after the last proof, one interval, then
   * two timed-out probes a retry apart: 24 + 2 + 0.5 + 2 = 28.5 s, within the
   * 30 s promised (a few ms more for the connect check of each timed-out probe).
   */
  probeIntervalMs?: number;
  /** A probe is stopped after this (then judged by the probe: `no-answer` or `unreachable`). Default 2000 ms. */
  probeTimeoutMs?: number;
  /** After a miss, the next probe comes this soon. Default 500 ms. */
  probeRetryMs?: number;
  /** How often the received-bytes counter is read between probes (free: no request, but a wakeup). Default and most: half the probe interval (12 s). */
  probeLookMs?: number;
  /**
   * Misses in a row that take the tunnel down. Default 2 (see probeIntervalMs
   * for the worst case this gives).
   */
  probeStrikesForDown?: number;
  /** The backoff policy (shared with whoever retries the first open); built from the knobs below when left out. */
  backoff?: TunnelBackoff;
  /**
   * A tick of the wake detector (every 10 s) this much late, or the wall
   * clock this much ahead of the monotonic one between two ticks, means the
   * process did not run (SIGSTOP; the laptop slept): the tunnel goes down as
   * `woke` and reopens at once (wake-detector.ts). Default 5000 ms; 0 turns it off.
   */
  wakeJumpMs?: number;
  /** Reopen backoff: 1 s doubling to 10 s, with jitter. */
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  /**
   * The first reopen after a loss waits only this long (default 200 ms), then
   * the backoff runs; not when the tunnel was lost before within `flapWindowMs`.
   */
  quickReopenMs?: number;
  /** A loss within this long of the previous one counts as flapping. Default 60000 ms. */
  flapWindowMs?: number;
  /**
   * A tunnel that carried requests at least this long before it was lost is
   * not flapping, however recent the previous loss (default 10000 ms): a
   * healthy tunnel dropped now and then always gets the quick reopen.
   */
  stableAfterMs?: number;
  /**
   * First open only: when the server grants another name than `subdomain`
   * (it may still hold ours for a moment after our last run), ask for ours
   * again with backoff from `nameRetryBaseMs` for this long before settling
   * for the other name. Default 2000 ms (twice localtunnel-server's 1 s
   * grace); 0 turns it off.
   */
  nameRetryMs?: number;
  /** Default 250 ms. */
  nameRetryBaseMs?: number;
  random?: () => number;
  /** Every wait (probe schedule and timeouts, reopen backoff, name retries, the wake tick) runs on it. Default systemClock. */
  clock?: Clock;
}

export interface TunnelHandle {
  readonly providerName: string;
  /** The public origin, or undefined while the tunnel is down. */
  readonly url: string | undefined;
  readonly subdomain: string | undefined;
  readonly isOpen: boolean;
  /** Subscribes to one event type; returns the unsubscribe function. */
  on<K extends TunnelEventType>(type: K, listener: (event: TunnelEventOf<K>) => void): () => void;
  /** Idempotent: stops probing and reopening and closes the tunnel. */
  close(): Promise<void>;
}

/**
 * Opens a tunnel to `localPort` and keeps it open: when its sockets are gone
 * or the probe finds the tunnel server answering for it three times in a
 * row, it reports `down` and reopens (a quick first try, then backoff)
 * until `close()`. Resolves once the first open carries requests (having
 * asked again for a requested name the server still held, see openFirst);
 * rejects with the provider's coded error (no retry). `signal` cancels the
 * opening, and later closes the handle.
 */
export async function startTunnel(options: StartTunnelOptions, { signal }: { signal?: AbortSignal } = {}): Promise<TunnelHandle> {
  const logger = options.logger ?? silentLogger;
  const backoff =
    options.backoff ??
    createTunnelBackoff({ baseMs: options.reconnectBaseMs, maxMs: options.reconnectMaxMs, random: options.random, quickMs: options.quickReopenMs });
  const clock = options.clock ?? systemClock;
  const now = (): number => clock.now();
  const flapWindowMs = options.flapWindowMs ?? 60_000;
  const stableAfterMs = options.stableAfterMs ?? 10_000;
  const probeIntervalMs = options.probeIntervalMs ?? 24_000;
  const probeLookMs = Math.min(options.probeLookMs ?? probeIntervalMs / 2, probeIntervalMs / 2);
  const probeTimeoutMs = options.probeTimeoutMs ?? 2_000;
  const probeRetryMs = options.probeRetryMs ?? 500;
  const strikesForDown = options.probeStrikesForDown ?? 2;
  const wakeJumpMs = options.wakeJumpMs ?? 5_000;
  const nameRetryMs = options.nameRetryMs ?? 2_000;
  const nameRetryBaseMs = options.nameRetryBaseMs ?? 250;
  const listeners = new Set<(event: TunnelEvent) => void>();
  const life = new AbortController();
  const openRequest = { localPort: options.localPort, subdomain: options.subdomain, ...(options.handOff ? { handOff: options.handOff } : {}) };

  let connection: TunnelConnection | undefined;
  let lastUrl: string | undefined;
  const subdomain = options.subdomain;
  let grantedSubdomain: string | undefined;
  /** Reopens that failed since the last loss. */
  let failures = 0;
  /** Losses in a row, each within flapWindowMs of the one before. */
  let recentLosses = 0;
  let lastLossAt: number | undefined;
  let openedAt = 0;
  let strikes = 0;
  /** What the connection had received at the last look (or probe). */
  let bytesAtLastProbe: number | undefined;
  /** When the tunnel last proved alive (opened, a healthy probe, or the look before bytes were seen), and when the counter was last read. */
  let aliveAt = 0;
  let lookedAt = 0;
  /** Why the tunnel is down now: a reopen after probe-failed or woke asks for its own name a while (our old registration may hold it). */
  let downReason: TunnelDownReason | undefined;
  let reopenTimer: ClockTimer | undefined;
  let probeTimer: ClockTimer | undefined;
  let probing: AbortController | undefined;
  let reopening: Promise<void> | undefined;

  const emit = (event: TunnelEvent): void => {
    for (const listener of [options.onEvent, ...listeners]) {
      try {
        listener?.(event);
      } catch (error) {
        logger.error('a tunnel event listener threw', { event: event.type, error: String(error) });
      }
    }
  };

  const adopt = (next: TunnelConnection): void => {
    const requested = subdomain;
    const previousUrl = lastUrl;
    const isHostnameChange =
      previousUrl === undefined ? requested !== undefined && next.subdomain !== undefined && next.subdomain !== requested : next.url !== previousUrl;
    connection = next;
    lastUrl = next.url;
    grantedSubdomain = next.subdomain ?? subdomain;
    openedAt = now();
    failures = 0;
    strikes = 0;
    downReason = undefined;
    bytesAtLastProbe = next.bytesReceived();
    aliveAt = lookedAt = now();
    next.onLost((reason) => {
      if (connection === next) goDown('sockets-gone', reason);
    });
    logger.info('tunnel open', { url: next.url, isHostnameChange });
    emit({ type: 'opened', url: next.url, subdomain: next.subdomain, requestedSubdomain: requested, isHostnameChange, previousUrl });
    scheduleProbe();
  };

  const goDown = (reason: TunnelDownReason, message: string): void => {
    const old = connection;
    if (!old || life.signal.aborted) return;
    connection = undefined;
    probeTimer?.cancel();
    probing?.abort();
    const lostAt = now();
    const wasStable = lostAt - openedAt >= stableAfterMs;
    // Waking is not flapping: the machine slept, the tunnel did not misbehave.
    if (reason !== 'woke') {
      recentLosses = !wasStable && lastLossAt !== undefined && lostAt - lastLossAt < flapWindowMs ? recentLosses + 1 : 0;
      lastLossAt = lostAt;
    }
    failures = 0;
    downReason = reason;
    logger.warn('tunnel down', { reason, message, recentLosses });
    emit({ type: 'down', reason, message });
    old.close().catch((error: unknown) => logger.debug('closing a lost tunnel failed', { error: String(error) }));
    scheduleReopen(reason === 'woke' ? 0 : undefined);
  };

  const scheduleReopen = (delayMs?: number): number => {
    const delay = delayMs ?? backoff.afterLoss(failures, recentLosses);
    reopenTimer = clock.setTimer(() => {
      reopenTimer = undefined;
      reopening = reopen();
    }, delay);
    return delay;
  };

  const reopen = async (): Promise<void> => {
    if (life.signal.aborted) return;
    try {
      // After probe-failed or woke our old registration may still hold the name for a moment: ask again for it a while.
      const isNameMaybeHeld = downReason === 'probe-failed' || downReason === 'woke';
      const next = isNameMaybeHeld
        ? await openFirst({ provider: options.provider, request: openRequest, nameRetryMs, nameRetryBaseMs, signal: life.signal, logger, clock })
        : await options.provider.open(openRequest, { signal: life.signal });
      if (life.signal.aborted) {
        await next.close();
        return;
      }
      adopt(next);
    } catch (error) {
      if (life.signal.aborted) return;
      failures += 1;
      // The same server would answer the same (a wrong --tunnel-host): no loop.
      const isFinal = isFinalTunnelError(error);
      const retryInMs = isFinal ? 0 : scheduleReopen();
      const code = codeOf(error, 'tunnel_reopen_failed');
      const message = error instanceof Error ? error.message : String(error);
      const hint = (error as { hint?: unknown }).hint;
      logger.warn('tunnel reopen failed', { attempt: failures, code, retryInMs, isFinal });
      emit({ type: 'reopen-failed', attempt: failures, code, message, retryInMs, isFinal, ...(typeof hint === 'string' ? { hint } : {}) });
    }
  };

  const scheduleProbe = (delayMs = probeLookMs): void => {
    if (!options.probe || !connection || life.signal.aborted) return;
    probeTimer?.cancel();
    probeTimer = clock.setTimer(() => void runProbe(), delayMs);
  };

  const runProbe = async (): Promise<void> => {
    const probed = connection;
    if (!probed || !options.probe) return;
    if (strikes === 0) {
      const bytes = probed.bytesReceived();
      const at = now();
      if (bytes !== undefined && bytesAtLastProbe !== undefined && bytes > bytesAtLastProbe) {
        // Requests came down the tunnel since the last look: it was alive at that look at least. No probe needed.
        logger.debug('tunnel busy: not probed', { bytes: bytes - bytesAtLastProbe });
        aliveAt = Math.max(aliveAt, lookedAt);
        bytesAtLastProbe = bytes;
      }
      lookedAt = at;
      const dueInMs = aliveAt + probeIntervalMs - at;
      if (dueInMs > 0) {
        scheduleProbe(Math.min(probeLookMs, dueInMs));
        return;
      }
    }
    const result = await probeOnce(options.probe, `${probed.url}${HEALTH_PATH}`, { timeoutMs: probeTimeoutMs, clock }, (controller) => (probing = controller));
    if (connection !== probed) return;
    bytesAtLastProbe = probed.bytesReceived();
    const verdict = judgeHealthProbe(result);
    strikes = nextProbeStrikes(strikes, verdict);
    if (verdict === 'healthy') aliveAt = lookedAt = now();
    logger.debug('tunnel probe', { verdict, strikes });
    if (strikes >= strikesForDown) {
      goDown('probe-failed', `the probe of ${probed.url} ${describeMiss(result)}, ${strikes} times in a row`);
      return;
    }
    // After a miss (or an inconclusive look) the next probe comes soon; else the next look.
    scheduleProbe(verdict === 'tunnel-missing' ? probeRetryMs : verdict === 'healthy' ? probeLookMs : probeIntervalMs);
  };

  const wake = startWakeDetector({
    jumpMs: wakeJumpMs,
    clock,
    onWake(gapMs) {
      if (life.signal.aborted) return;
      const message = `the process did not run for ${Math.round(gapMs / 100) / 10} s (the machine slept or the process was stopped); the tunnel server has likely forgotten this tunnel`;
      if (connection) {
        goDown('woke', message);
      } else if (reopenTimer) {
        // Already down and waiting out a backoff: try now, the network may be back.
        reopenTimer.cancel();
        downReason = 'woke';
        scheduleReopen(0);
      }
    },
  });

  const first = await openFirst({
    provider: options.provider,
    request: openRequest,
    nameRetryMs,
    nameRetryBaseMs,
    signal,
    logger,
    clock,
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      life.abort();
      signal?.removeEventListener('abort', onAbort);
      reopenTimer?.cancel();
      probeTimer?.cancel();
      wake.stop();
      probing?.abort();
      const open = connection;
      connection = undefined;
      await Promise.allSettled([open?.close(), reopening]);
      listeners.clear();
    })();
    return closing;
  };
  const onAbort = (): void => void close();
  signal?.addEventListener('abort', onAbort, { once: true });

  adopt(first);
  if (signal?.aborted) onAbort();
  return {
    providerName: options.provider.name,
    get url() {
      return connection?.url;
    },
    get subdomain() {
      return connection ? grantedSubdomain : undefined;
    },
    get isOpen() {
      return connection !== undefined;
    },
    on(type, listener) {
      const wrapped = (event: TunnelEvent): void => {
        if (event.type === type) listener(event as TunnelEventOf<typeof type>);
      };
      listeners.add(wrapped);
      return () => void listeners.delete(wrapped);
    },
    close,
  };
}
