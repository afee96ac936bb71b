import type { Socket } from 'node:net';
import type { ProjectState, StartConfig } from '../config/index.js';
import { readProjectState } from '../config/index.js';
import { MedianDevError, codeOf } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { DaemonFact, NewDaemonEvent } from '../events/index.js';
import {
  createFetchHealthProbe,
  deriveSubdomain,
  isFinalTunnelError,
  createTunnelBackoff,
  startTunnel,
  type TunnelEvent,
  type HealthProbe,
  type TunnelHandle,
  type TunnelProvider,
} from '../tunnel/index.js';
import type { Clock } from '../shared/clock.js';
import { pause } from '../shared/delay.js';
import { chooseTunnelProvider } from './tunnel-provider-choice.js';
import { createOutageAdvisor, providerAlternatives } from './outage-advice.js';

export interface TunnelKeeperOptions {
  config: StartConfig;
  localPort: number;
  /** The proxy's HTTP server takes tunnel sockets straight (no second loopback hop). */
  acceptConnection?: (socket: Socket) => void;
  /** The proxy's instance id: the health probe recognises our own answer by it. */
  instanceId: string;
  logger: Logger;
  emit(event: NewDaemonEvent): void;
  /** Where `tunnel.opened`, `tunnel.openFailed` and `tunnel.lost` go (the daemon's dispatch). */
  report(fact: DaemonFact): void;
  /** Writes what the next start takes by default (the subdomain, the provider chosen). */
  remember(patch: Partial<ProjectState>): Promise<void>;
  /** The environment tunnel programs (cloudflared, ssh) run with. */
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  /** Tests and the demo: backoff, probe, provider knobs. */
  tuning?: TunnelTuning;
  /** The first open's retries and everything startTunnel waits for run on it (tests drive it). Real time when left out. */
  clock?: Clock;
}

export interface TunnelTuning {
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  openTimeoutMs?: number;
  lostAfterMs?: number;
  probe?: HealthProbe | false;
  probeIntervalMs?: number;
  /** e2e tests of other providers: their fake's edge, through which the probe reaches names that have no DNS offline. */
  probeVia?: string;
  /** How often an attached ngrok agent's API is looked at (default 5 s). */
  agentFollowMs?: number;
  /** Demo: what `h` does (the loopback tunnel server hands out another name). */
  simulateHostnameChange?: () => Promise<void>;
}

export interface TunnelKeeper {
  simulateHostnameChange(): Promise<void>;
  close(): Promise<void>;
}



/**
 * Opens the tunnel in the background and keeps it open; the first open is
 * retried with the same backoff policy as reopens (startTunnel itself does
 * not retry a first open). Every `opened` is reported as `tunnel.opened`.
 */
export async function startTunnelKeeper(options: TunnelKeeperOptions): Promise<TunnelKeeper> {
  const { config, emit, logger, signal } = options;
  const tuning = options.tuning ?? {};
  const state = await readProjectState(config.dataDir);

  if (config.tunnel === 'none' && !config.publicUrl) {
    emit({
      event: 'log',
      level: 'warn',
      message: `--tunnel none without --public-url: using http://127.0.0.1:${options.localPort}, which only a Median emulator on this machine can reach.`,
    });
  }
  const choice = await chooseTunnelProvider({
    config,
    localPort: options.localPort,
    env: options.env,
    logger,
    ...(tuning.openTimeoutMs ? { openTimeoutMs: tuning.openTimeoutMs } : {}),
    ...(tuning.lostAfterMs ? { lostAfterMs: tuning.lostAfterMs } : {}),
    ...(tuning.agentFollowMs ? { agentFollowMs: tuning.agentFollowMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const provider: TunnelProvider = choice.provider;
  if (choice.why) emit({ event: 'log', level: 'info', message: `tunnel provider: ${choice.label}, because ${choice.why}` });
  let subdomain: string | undefined;
  const patch: Partial<ProjectState> = {};
  if (config.tunnel === 'localtunnel' || (config.tunnel === 'auto' && provider.name === 'localtunnel')) {
    subdomain = config.subdomain ?? state.subdomain ?? deriveSubdomain(config.cwd);
    if (subdomain !== state.subdomain) patch.subdomain = subdomain;
  }
  // The choice given is remembered, like the subdomain: the next start without --tunnel takes it.
  if (!config.isTunnelRemembered && config.tunnel !== state.tunnel && (config.tunnel !== 'localtunnel' || state.tunnel !== undefined)) patch.tunnel = config.tunnel;
  if (config.ngrokDomain && config.ngrokDomain !== state.ngrokDomain) patch.ngrokDomain = config.ngrokDomain;
  if (config.sshDestination && config.sshDestination !== state.sshDestination) patch.sshDestination = config.sshDestination;
  if (Object.keys(patch).length > 0) await options.remember(patch);
  const outageAdvisor = provider.name === 'localtunnel' ? createOutageAdvisor({ alternatives: providerAlternatives(options.env, config.ngrokAuthtoken !== undefined) }) : undefined;

  /** The tunnel's facts: `opened` heals (the dispatch), everything is reported to clients as `tunnel` events. */
  const onTunnelEvent = (event: TunnelEvent): void => {
    switch (event.type) {
      case 'opened':
        emit({
          event: 'tunnel',
          state: 'open',
          url: event.url,
          provider: choice.label,
          ...(event.subdomain ? { subdomain: event.subdomain } : {}),
          ...(event.requestedSubdomain ? { requestedSubdomain: event.requestedSubdomain } : {}),
          isHostnameChange: event.isHostnameChange,
        });
        options.report({ type: 'tunnel.opened', origin: event.url, isHostnameChange: event.isHostnameChange });
        return;
      case 'down': {
        emit({ event: 'tunnel', state: 'down', reason: `${event.reason}: ${event.message}` });
        options.report({ type: 'tunnel.lost', reason: event.reason });
        // A machine that slept is no outage of the server.
        const advice = event.reason === 'woke' ? undefined : outageAdvisor?.noteOutage();
        if (advice) emit({ event: 'log', level: 'warn', message: advice });
        return;
      }
      case 'reopen-failed':
        if (event.isFinal) {
          emit({ event: 'tunnel', state: 'down', reason: `reopening failed (${event.code}): ${event.message}; not retrying` });
          emit({ event: 'error', code: event.code, message: `The tunnel is down and cannot reopen: ${event.message}`, ...(event.hint ? { hint: event.hint } : {}) });
          return;
        }
        emit({ event: 'tunnel', state: 'down', reason: `reopening failed (${event.code}): ${event.message}; next try in ${seconds(event.retryInMs)} s` });
        // Once per outage, as an error with its code; the retries are `down` events.
        if (event.attempt === 1) {
          emit({
            event: 'error',
            code: event.code,
            message: `The tunnel is down and could not reopen: ${event.message}`,
            hint: `median-dev keeps trying, waiting longer each time (up to 10 s); Median cannot reach the route until the tunnel is back. Check ${config.tunnelHost}.`,
          });
        }
        return;
      default: {
        const never: never = event;
        logger.warn(`an unknown tunnel event: ${JSON.stringify(never)}`);
      }
    }
  };

  // One backoff policy for the first open's retries (here) and the reopens (in startTunnel).
  const backoff = createTunnelBackoff({ baseMs: tuning.reconnectBaseMs, maxMs: tuning.reconnectMaxMs });
  // The public URL is probed whenever this machine can reach it: by its name, or (a name with no DNS here, as a
  // self-hosted server's may have) through the localtunnel server that handed it out. Never through it for
  // another provider's URL: a fresh trycloudflare.com name that has no DNS yet would reach localtunnel.me and
  // its 404 would count as a dead tunnel.
  const probeVia = tuning.probeVia ?? (provider.name === 'localtunnel' ? config.tunnelHost : undefined);
  const probe =
    tuning.probe === false ? undefined : (tuning.probe ?? (provider.name === 'none' ? undefined : createFetchHealthProbe({ instanceId: options.instanceId, ...(probeVia ? { tunnelHost: probeVia } : {}) })));
  let handle: TunnelHandle | undefined;
  const opening = (async () => {
    emit({ event: 'tunnel', state: 'connecting', ...(subdomain ? { requestedSubdomain: subdomain } : {}) });
    for (let failures = 0; !signal.aborted; ) {
      try {
        handle = await startTunnel(
          {
            provider,
            localPort: options.localPort,
            ...(options.acceptConnection ? { handOff: options.acceptConnection } : {}),
            ...(subdomain ? { subdomain } : {}),
            logger,
            ...(probe ? { probe } : {}),
            ...(tuning.probeIntervalMs ? { probeIntervalMs: tuning.probeIntervalMs } : {}),
            backoff,
            ...(options.clock ? { clock: options.clock } : {}),
            onEvent: onTunnelEvent,
          },
          { signal },
        );
        return;
      } catch (error) {
        if (signal.aborted) return;
        failures += 1;
        const message = error instanceof Error ? error.message : String(error);
        const hint = error instanceof MedianDevError ? error.hint : undefined;
        if (isFinalTunnelError(error)) {
          // Asking the same server again gets the same answer: say it once, with the fix, and stop.
          emit({ event: 'tunnel', state: 'down', reason: `${message} (not retrying)` });
          emit({ event: 'error', code: codeOf(error, 'tunnel_open_failed'), message: `The tunnel did not open: ${message}`, ...(hint ? { hint } : {}) });
          options.report({ type: 'tunnel.openFailed', isFinal: true });
          return;
        }
        const waitMs = backoff.afterFailedOpen(failures);
        emit({ event: 'tunnel', state: 'down', reason: `${message} (next try in ${seconds(waitMs)} s)` });
        if (failures === 1) {
          emit({
            event: 'error',
            code: codeOf(error, 'tunnel_open_failed'),
            message: `The tunnel did not open: ${message}`,
            hint: hint ?? `median-dev keeps trying. Check --tunnel-host (${config.tunnelHost}), or use your own tunnel with --tunnel none --public-url <origin>.`,
          });
        }
        options.report({ type: 'tunnel.openFailed', isFinal: false });
        await pause(waitMs, signal, options.clock);
      }
    }
  })();

  let closing: Promise<void> | undefined;
  return {
    async simulateHostnameChange() {
      if (!tuning.simulateHostnameChange) {
        throw new MedianDevError('not_in_demo', 'Simulating a hostname change only works in `median-dev demo`, whose tunnel server is local.');
      }
      await tuning.simulateHostnameChange();
    },
    close() {
      closing ??= (async () => {
        await opening.catch(() => undefined);
        await handle?.close();
      })();
      return closing;
    },
  };
}

/** Milliseconds as seconds with one decimal, for messages. */
function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}
