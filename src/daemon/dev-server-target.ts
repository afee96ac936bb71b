import { connect } from 'node:net';
import { findAnnouncedUrl } from '../child/index.js';
import { isTargetNamed, type StartConfig } from '../config/index.js';
import type { DaemonEvent, NewDaemonEvent, TargetHow, TargetState } from '../events/index.js';
import { originOfListening, type ListeningSocket } from '../platform/index.js';
import { systemClock, type Clock, type ClockTimer } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { TargetWatch } from './target-watch.js';

/** How often a starting dev server is looked at (its ports, whether it listens). */
const POLL_MS = 250;
/** A dev server prints its address as it listens: the OS is asked only after this. */
const PORT_LOOKUP_AFTER_MS = 500;
/** A dev server that said nothing and opened no port we see by then: the remembered or default target is tried. */
export const SILENT_FALLBACK_MS = 10_000;
/** A dev server listens once it announced its address: not listening this long after is `target_unreachable`. */
const ANNOUNCED_LISTENS_WITHIN_MS = 3_000;
/** One probe's connect timeout. */
const PROBE_TIMEOUT_MS = 1_000;

export interface DevServerTargetOptions {
  config: Pick<StartConfig, 'target' | 'targetFrom' | 'route'>;
  /** Whether a dev server command runs (without one there is nothing to find or wait for). */
  hasCommand: boolean;
  /** The proxy's own port: a dev server printing it is not announcing itself. */
  proxyPort: number;
  /** Points the proxy at the origin found. */
  setProxyTarget(origin: string): void;
  emit(event: NewDaemonEvent): void;
  /** Remembers what was found (state.json, control.json) for the other commands and the next start. */
  remember(origin: string, how: 'announced' | 'listening'): Promise<void>;
  /** The ports a process tree listens on (platform/listening-ports.ts). */
  lookupPorts(pid: number): Promise<ListeningSocket[]>;
  targetWatch: TargetWatch;
  signal: AbortSignal;
  logger: Logger;
  timing?: Partial<{ pollMs: number; silentFallbackMs: number }>;
  /** The looks, the port lookup's delay, the silent fallback and the announced address's 3 s run on it (tests drive it); real time when left out. */
  clock?: Clock | undefined;
}

/** The dev server's origin, found from what it announces or the port it opens, and whether it listens yet. */
export interface DevServerTarget {
  /** The origin calls go to now. */
  current(): string;
  /** How it is known. */
  how(): TargetHow;
  /** What the proxy answers while the dev server starts (503s): `finding`, `starting`, or null (up, or not ours). */
  phase(): 'finding' | 'starting' | null;
  /** A call through the proxy was answered at `current()`: it listens (sooner than the next look would see). */
  answered(): void;
  /** Every daemon event (the hub's listener): the child's states and output drive the search. */
  take(event: DaemonEvent): void;
}

interface Run {
  pid: number;
  startedAt: number;
  found: { how: 'announced' | 'listening'; at: number } | undefined;
  isListening: boolean;
  hasFallenBack: boolean;
  /** When it announced the address calls go to: it is expected to listen there from then on. */
  announcedAt: number | undefined;
  /** The port lookup's last answer: taken only when two looks agree (a port open for a moment is not the server). */
  lastCandidate: string | undefined;
  timer: ClockTimer | undefined;
}

export function createDevServerTarget(options: DevServerTargetOptions): DevServerTarget {
  const { config, targetWatch } = options;
  const clock = options.clock ?? systemClock;
  const pollMs = options.timing?.pollMs ?? POLL_MS;
  const silentFallbackMs = options.timing?.silentFallbackMs ?? SILENT_FALLBACK_MS;
  const isFinding = options.hasCommand && !isTargetNamed(config.targetFrom);
  let current = config.target;
  let how: TargetHow = isTargetNamed(config.targetFrom) ? 'flag' : config.targetFrom === 'remembered' ? 'remembered' : 'default';
  /** This daemon found where its dev server listens at least once: a restarted one is first looked for there. */
  let hasFound = false;
  let saidUrl: string | undefined;
  let run: Run | undefined;
  /** Between a restart's `starting` and the new process running (its `stopped` is part of the restart). */
  let isRestarting = false;
  let isGone = false;

  const state = (): TargetState => (phase() === 'finding' ? 'finding' : run?.isListening ? 'listening' : 'starting');
  const say = (message?: string, line?: string): void => {
    const event: NewDaemonEvent = { event: 'target', url: phase() === 'finding' ? null : current, how, state: state(), ...(line ? { line } : {}), ...(message ? { message } : {}) };
    // After the event that led to it (a `child` event is still being handed to the hub's other listeners).
    queueMicrotask(() => {
      if (!options.signal.aborted) options.emit(event);
    });
  };

  function phase(): 'finding' | 'starting' | null {
    if (!options.hasCommand || isGone || run?.isListening) return null;
    if (isFinding && !hasFound && !run?.found && !run?.hasFallenBack) return 'finding';
    return 'starting';
  }

  function found(origin: string, foundHow: 'announced' | 'listening', line?: string): void {
    if (!run) return;
    if (isOwnProxy(origin, options.proxyPort)) return;
    run.found = { how: foundHow, at: clock.now() };
    if (foundHow === 'announced') run.announcedAt = clock.now();
    hasFound = true;
    how = foundHow;
    if (origin !== current) {
      current = origin;
      options.setProxyTarget(origin);
    }
    const isNew = saidUrl !== origin;
    saidUrl = origin;
    say(isNew ? foundMessage(origin, foundHow) : undefined, line);
    if (isNew) {
      options.remember(origin, foundHow).catch((error: unknown) => options.logger.debug(`remembering the target: ${String(error)}`));
    }
  }

  function fallBack(active: Run): void {
    active.hasFallenBack = true;
    const which = how === 'remembered' ? 'the one the last start found' : 'the default';
    say(`The dev server has not said where it listens, and opened no port median-dev can see, within ${Math.round(silentFallbackMs / 1000)} s: trying ${current} (${which}). Pass --target to name it.`);
  }

  async function look(active: Run): Promise<void> {
    const now = clock.now();
    if (isFinding && !active.found && now - active.startedAt >= PORT_LOOKUP_AFTER_MS) {
      const origin = originOfListening(await options.lookupPorts(active.pid), { ignorePorts: [options.proxyPort] });
      if (run !== active) return;
      if (origin !== undefined && origin === active.lastCandidate) found(origin, 'listening');
      active.lastCandidate = origin;
    }
    // The guess is only tried once it is more than a guess: found, named, or the wait for the dev server is over.
    const isWorthProbing = !isFinding || hasFound || active.hasFallenBack;
    if (isWorthProbing && (await isListening(current))) {
      if (run !== active || active.isListening) return;
      markListening(active);
      return;
    }
    if (run !== active) return;
    const elapsed = clock.now() - active.startedAt;
    if (isFinding && !active.found && !active.hasFallenBack && !hasFound && elapsed >= silentFallbackMs) fallBack(active);
    if (active.announcedAt !== undefined) {
      const sinceAnnounced = clock.now() - active.announcedAt;
      if (sinceAnnounced >= ANNOUNCED_LISTENS_WITHIN_MS) targetWatch.unreachable('the dev server said it listens there, but the connection is refused', sinceAnnounced, false);
    } else if (phase() === 'starting') {
      targetWatch.unreachable('the dev server runs, but nothing listens there yet', elapsed, true);
    }
  }

  function markListening(active: Run): void {
    active.isListening = true;
    active.timer?.cancel();
    active.timer = undefined;
    targetWatch.answered();
    say();
  }

  function schedule(active: Run): void {
    if (options.signal.aborted || run !== active || active.isListening) return;
    active.timer = clock.setTimer(() => {
      look(active)
        .catch((error: unknown) => options.logger.debug(`looking at the dev server: ${String(error)}`))
        .finally(() => schedule(active));
    }, pollMs);
  }

  function endRun(): void {
    run?.timer?.cancel();
    run = undefined;
  }
  options.signal.addEventListener('abort', endRun, { once: true });

  return {
    current: () => current,
    how: () => how,
    phase,
    answered() {
      // Only while finding is over: then the proxy forwards to `current`, and an answer came from there.
      if (run && !run.isListening && phase() === 'starting' && !options.signal.aborted) markListening(run);
    },
    take(event) {
      if (!options.hasCommand || options.signal.aborted) return;
      if (event.event === 'child') {
        if (event.state === 'starting') {
          isRestarting = true;
          isGone = false;
          endRun();
          say();
        } else if (event.state === 'running' && event.pid !== undefined) {
          isRestarting = false;
          isGone = false;
          endRun();
          run = { pid: event.pid, startedAt: clock.now(), found: undefined, isListening: false, hasFallenBack: false, announcedAt: undefined, lastCandidate: undefined, timer: undefined };
          say(isFinding && !hasFound ? 'The dev server is starting: median-dev reads where it listens from its output, or from the port it opens.' : undefined);
          schedule(run);
        } else if (event.state === 'exited' || (event.state === 'stopped' && !isRestarting)) {
          endRun();
          isGone = true;
        }
        return;
      }
      if (event.event !== 'output' || !run || run.isListening) return;
      if (!isFinding) {
        // A named target: the dev server saying it listens there is when it is expected to.
        const announced = findAnnouncedUrl(event.line);
        if (announced && run.announcedAt === undefined && isSameAddress(announced.origin, current)) run.announcedAt = clock.now();
        return;
      }
      // The first local address a run announces wins; a later one only while that one does not listen.
      if (run.found?.how === 'announced' && (run.isListening || clock.now() - run.found.at < ANNOUNCED_LISTENS_WITHIN_MS)) return;
      const announced = findAnnouncedUrl(event.line);
      if (announced && (announced.origin !== current || run.found?.how !== 'announced')) found(announced.origin, 'announced', announced.line);
    },
  };
}

function foundMessage(origin: string, how: 'announced' | 'listening'): string {
  return how === 'announced'
    ? `The dev server announced ${origin}: calls go there (--target names another).`
    : `The dev server listens on ${origin} (the port its process opened; it printed no address): calls go there (--target names another).`;
}

/** The same port on this machine (`localhost`, `127.0.0.1` and `[::1]` reach one dev server). */
function isSameAddress(a: string, b: string): boolean {
  const first = new URL(a);
  const second = new URL(b);
  return first.protocol === second.protocol && first.port === second.port && LOOPBACK.has(first.hostname) && LOOPBACK.has(second.hostname);
}
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function isOwnProxy(origin: string, proxyPort: number): boolean {
  const url = new URL(origin);
  return Number(url.port) === proxyPort;
}

/** Whether something accepts a TCP connection at `origin` (a dev server listening; nothing is sent). */
function isListening(origin: string): Promise<boolean> {
  const url = new URL(origin);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: PROBE_TIMEOUT_MS });
    const done = (isUp: boolean) => {
      socket.destroy();
      resolve(isUp);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
