import { basename } from 'node:path';
import { buildChildEnv, createChildKeeper, isEnvFileReloadedBy, withoutToolsUrl } from '../child/index.js';
import { findLoadError, findLoadNotice } from '../median/index.js';
import { readProjectState, type StartConfig } from '../config/index.js';
import { DEFAULT_RETRY_POLICY, createNudgeSource, waitForRoute } from '../endpoints/index.js';
import { restartHint, type DaemonFact, type NewDaemonEvent } from '../events/index.js';
import { systemClock, type Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { EnvVars } from './env-vars.js';
import { decideUrlChangeMode, type UrlChangeDecision, type UrlChangeMode } from './url-change-mode.js';
import type { TargetWatch } from './target-watch.js';

/**
 * On shutdown the dev server gets 2 s after SIGTERM before SIGKILL (restarts
 * give it 5 s), so SIGINT still exits within the 3 s the SPEC promises.
 */
const SHUTDOWN_GRACE_MS = 2_000;
/** A reload line this recent when the wait starts counts: the file was written just before. */
const RECENT_RELOAD_MS = 500;

export interface ChildRestartPolicyOptions {
  config: Pick<StartConfig, 'cwd' | 'target' | 'route' | 'dataDir' | 'keySource' | 'keyFile' | 'envFile' | 'restartOnUrlChange'>;
  command: string[];
  /** The daemon's own pid: the owner written beside the child's, so only a dead owner's child is ever reaped. */
  daemonPid: number;
  baseEnv: Readonly<Record<string, string | undefined>>;
  vars: EnvVars;
  /** The MEDIAN_KEY in use (an env-file key is passed on to the dev server). */
  key(): string | undefined;
  emit(event: NewDaemonEvent): void;
  /** Masks secrets in the dev server's output before a long line is cut in pieces (the event masker's). */
  maskOutput?: (text: string) => string;
  /** Where `child.exited` goes (the daemon's dispatch). */
  report(fact: DaemonFact): void;
  logger: Logger;
  signal: AbortSignal;
  timing: Partial<{ routeReadyTimeoutMs: number; childStopGraceMs: number; envReloadWaitMs: number }>;
  /** Says `target_unreachable` when the dev server runs but nothing answers at --target. */
  targetWatch?: TargetWatch;
  /** The dev server's origin now (undefined: not known yet); left out, --target. */
  target?: () => string | undefined;
  /** The reload wait, the wait for the route and the dev server's stop grace run on it (tests drive it); real time when left out. */
  clock?: Clock | undefined;
}

/**
 * When the dev server (re)starts, with which MEDIAN_TOOLS_URL, and waiting
 * for its route to answer: steps 2 and 3 of a URL change, and of a key rotation.
 */
export interface ChildRestartPolicy {
  readonly hasCommand: boolean;
  readonly isStarted: boolean;
  /** The MEDIAN_TOOLS_URL the dev server was given (undefined: none of ours, the environment's as it is). */
  readonly toolsUrl: string | undefined;
  /**
   * When median-dev (re)started it, it said it reloaded its env file, or its route first answered after
   * either (ms on the clock; undefined: none started): a 5xx within a few seconds is it still starting.
   */
  readonly startingSince: number | undefined;
  /**
   * Brings the dev server to MEDIAN_TOOLS_URL=`url` (--restart-on-url-change):
   * restarts it, or waits for one that reloads the env file to say so, or
   * (never) leaves it with the old URL; at once when it already runs with it.
   */
  restartFor(url: string): Promise<void>;
  /** Waits until the route answers, the dev server exits, or the wait times out; at once without a command. */
  waitUntilAnswering(): Promise<void>;
  /** Starts the dev server at the last run's tools URL, so it compiles while the tunnel opens. */
  startAtRememberedUrl(): Promise<void>;
  /**
   * Starts the dev server while no tunnel is open, unless it runs: with the
   * env file's MEDIAN_TOOLS_URL as it is, so a tunnel that opens under that
   * very URL restarts nothing.
   */
  startLocally(): Promise<void>;
  /** Restarts with the current environment (`R`). */
  restart(): Promise<void>;
  /**
   * A new MEDIAN_KEY in `source` (an env file): a dev server that reloads
   * that file is left running and waited for (the URL change's rule);
   * any other is restarted with it.
   */
  followKey(source: string | undefined): Promise<void>;
  /** Stops the dev server with the short shutdown grace. */
  close(): Promise<void>;
  /** SIGKILLs its tree at once (a second Ctrl-C). */
  killNow(): void;
}

export function createChildRestartPolicy(options: ChildRestartPolicyOptions): ChildRestartPolicy {
  const { config, timing } = options;
  const clock = options.clock ?? systemClock;
  /** The MEDIAN_TOOLS_URL the running dev server has (given, or reloaded from the env file). */
  let childUrl: string | undefined;
  /** Decided before the first start; read by env(). */
  let mode: UrlChangeMode = { kind: 'restart' };
  let deciding: Promise<UrlChangeMode> | undefined;
  /** `never`: the URL it was last told it keeps the old one for (said once per URL). */
  let keptFor: string | undefined;
  let lastReloadAt = Number.NEGATIVE_INFINITY;
  /** The env file MEDIAN_KEY comes from (the start's, then each rotation's). */
  let keyFile = config.keyFile;
  const reloadWaiters = new Set<() => void>();
  let startingSince: number | undefined;
  /** Restarted or reloaded since its route last answered: its first answer opens the starting window again. */
  let isAwaitingFirstAnswer = false;
  const startsNow = (): void => {
    startingSince = clock.now();
    isAwaitingFirstAnswer = true;
  };
  /** Each line the dev server prints nudges the wait for its route (its "listening on …" is when to look). */
  const outputNudges = createNudgeSource();

  // Read (package.json, the env files) while the tunnel opens, so the first start does not wait for it; said at that start.
  const decision = options.command.length > 0 ? decideUrlChangeMode({ policy: config.restartOnUrlChange, command: options.command, cwd: config.cwd, envFile: config.envFile }) : undefined;
  decision?.catch(() => undefined); // met where it is awaited
  const decide = (): Promise<UrlChangeMode> =>
    (deciding ??= (decision ?? Promise.resolve<UrlChangeDecision>({ mode })).then((decided) => {
      mode = decided.mode;
      if (decided.note) options.emit({ event: 'log', level: 'info', message: decided.note });
      return mode;
    }));

  /** Load errors already said for this run of the dev server: a stack printed on every request says it once. */
  const loadErrorsSaid = new Set<string>();
  /** The docs' Load errors in the dev server's output, said with their fix instead of a raw stack. */
  const sayLoadError = (line: string): void => {
    const notice = findLoadNotice(line);
    if (notice && !loadErrorsSaid.has(notice.message)) {
      loadErrorsSaid.add(notice.message);
      options.emit({ event: 'log', level: 'warn', message: `The route says: ${notice.message} ${notice.fix}` });
      return;
    }
    const found = findLoadError(line);
    if (!found || loadErrorsSaid.has(found.message)) return;
    loadErrorsSaid.add(found.message);
    options.emit({ event: 'error', code: 'route_load_error', message: `The route did not load: ${found.message}`, hint: `${found.fix} Every tool on the route is down until then; median-dev reconnects once it answers.` });
  };

  const child = createChildKeeper({
    command: options.command,
    cwd: config.cwd,
    env: () => {
      const key = options.key();
      // It loads the env file itself: a value in its environment would mask every reload (@next/env keeps those).
      // A key from a file it does not read (Nuxt reads .env only) still reaches it, through its environment.
      if (mode.kind === 'reloads') {
        const keyUnread = config.keySource === 'env-file' && key && keyFile !== undefined && !isEnvFileReloadedBy(mode.server.reloads, keyFile, config.cwd);
        return { ...withoutToolsUrl(options.baseEnv), ...(keyUnread ? { MEDIAN_KEY: key } : {}) };
      }
      return buildChildEnv(options.baseEnv, options.vars.get(), childUrl, config.keySource === 'env-file' && key ? { MEDIAN_KEY: key } : {});
    },
    emit: (event) => {
      options.emit(event);
      if (event.event === 'child' && event.state === 'starting') loadErrorsSaid.clear();
      if (event.event === 'output') {
        outputNudges.nudge();
        sayLoadError(event.line);
        options.targetWatch?.noteOutput(event.line);
      }
      if (event.event === 'output' && mode.kind === 'reloads' && mode.server.reloads.isReloadLine(event.line)) {
        lastReloadAt = clock.now();
        startsNow(); // it recompiles with the reloaded env: answers 500 for a moment
        for (const wake of reloadWaiters) wake();
      }
      if (event.event === 'child' && event.state === 'exited') options.report({ type: 'child.exited', code: event.code ?? null, signal: event.signal ?? null });
    },
    logger: options.logger,
    ...(options.maskOutput ? { maskOutput: options.maskOutput } : {}),
    orphanNote: { dataDir: config.dataDir, ownerPid: options.daemonPid },
    clock,
    ...(timing.childStopGraceMs ? { stopGraceMs: timing.childStopGraceMs } : {}),
  });

  /** How long a dev server that reloads its env files gets to say so (its profile's wait: Next.js 3 s, Nuxt 30 s) before the heal goes on. */
  const reloadWaitMs = (current: Extract<UrlChangeMode, { kind: 'reloads' }>): number => timing.envReloadWaitMs ?? current.server.reloads.waitMs;

  /** Resolves true once the dev server says it reloaded its env files (or did just now), false after `waitMs`. */
  function reloadSaid(waitMs: number): Promise<boolean> {
    if (clock.now() - lastReloadAt <= RECENT_RELOAD_MS) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (said: boolean) => {
        timer.cancel();
        reloadWaiters.delete(wake);
        options.signal.removeEventListener('abort', stop);
        resolve(said);
      };
      const wake = () => done(true);
      const stop = () => done(false);
      const timer = clock.setTimer(stop, waitMs);
      reloadWaiters.add(wake);
      options.signal.addEventListener('abort', stop, { once: true });
    });
  }

  /** (Re)starts it; one that reloads the env file starts with the file's URL. */
  async function startWith(url: string | undefined): Promise<void> {
    childUrl = mode.kind === 'reloads' ? (options.vars.get().MEDIAN_TOOLS_URL ?? url) : url;
    startsNow();
    await child.restart();
  }

  async function followWithoutRestart(current: Extract<UrlChangeMode, { kind: 'keep' | 'reloads' }>, url: string): Promise<void> {
    if (current.kind === 'keep') {
      if (keptFor === url) return;
      keptFor = url;
      const message = `The dev server keeps MEDIAN_TOOLS_URL=${childUrl ?? '(unset)'} in its environment (--restart-on-url-change never); restart it (${restartHint()}) to give it ${url}.`;
      options.emit({ event: 'log', level: 'warn', message });
      return;
    }
    childUrl = url;
    await waitForReload(current, basename(current.envFile), `MEDIAN_TOOLS_URL=${url}`);
  }

  /** Waits for the dev server to say it reloaded `file`, and says what its route has now (or the fix, when it said nothing). */
  async function waitForReload(current: Extract<UrlChangeMode, { kind: 'reloads' }>, file: string, what: string): Promise<void> {
    const waitMs = reloadWaitMs(current);
    if (await reloadSaid(waitMs)) {
      options.emit({ event: 'log', level: 'info', message: `${current.server.name} reloaded ${file}: its route has ${what} without a restart.` });
      return;
    }
    const message = `${current.server.name} did not say it reloaded ${file} within ${waitMs / 1000} s: if its route still has the old ${what.split('=')[0]}, restart it (${restartHint()}) or start with --restart-on-url-change always.`;
    options.emit({ event: 'log', level: 'warn', message });
  }

  return {
    get hasCommand() {
      return child.hasCommand;
    },
    get isStarted() {
      return child.isStarted;
    },
    get toolsUrl() {
      return childUrl;
    },
    get startingSince() {
      return startingSince;
    },
    async restartFor(url) {
      if (!child.hasCommand) return;
      const current = await decide();
      if (url === childUrl && child.isStarted) return;
      // Not started yet, or a crashed dev server that reloads its env: started with the new URL.
      if (current.kind === 'restart' || !child.isStarted || (current.kind === 'reloads' && !child.isRunning)) return startWith(url);
      await followWithoutRestart(current, url);
    },
    async waitUntilAnswering() {
      if (!child.hasCommand) return;
      // The endpoint's sync reaches the route only once the restarted dev server answers.
      let status = 0;
      const isAnswering = await waitForRoute({
        url: () => {
          const origin = options.target ? options.target() : config.target;
          return origin === undefined ? undefined : `${origin}${config.route}`;
        },
        timeoutMs: timing.routeReadyTimeoutMs ?? 60_000,
        isWorthWaiting: () => child.isRunning,
        signal: options.signal,
        clock,
        nudges: outputNudges.subscribe,
        onNotAnswering: (elapsedMs) => options.targetWatch?.unreachable('the dev server runs, but the connection is refused', elapsedMs, true),
        startingUntil: () => (startingSince === undefined ? undefined : startingSince + DEFAULT_RETRY_POLICY.starting.windowMs),
        onAnswered: (answered) => (status = answered),
      });
      if (!isAnswering) return;
      options.targetWatch?.answered();
      if (isAwaitingFirstAnswer && status < 500) startsNow(); // it compiled; a recompile may follow (a 5xx past the window: none)
      isAwaitingFirstAnswer = false;
    },
    async startAtRememberedUrl() {
      if (!child.hasCommand || child.isStarted) return;
      await decide();
      const previous = await readProjectState(config.dataDir);
      if (!previous.toolsUrl?.endsWith(config.route) || child.isStarted) return;
      await startWith(previous.toolsUrl);
    },
    restart: async () => {
      await decide();
      // `never`: R is how the user hands it the URL it was told it keeps the old one for.
      await startWith(mode.kind === 'keep' ? (keptFor ?? childUrl) : childUrl);
    },
    async followKey(source) {
      keyFile = source;
      if (!child.isStarted) return;
      const current = await decide();
      if (current.kind === 'reloads' && child.isRunning && source !== undefined && isEnvFileReloadedBy(current.server.reloads, source, config.cwd)) {
        return waitForReload(current, basename(source), 'the new MEDIAN_KEY');
      }
      await startWith(childUrl);
    },
    async startLocally() {
      if (!child.hasCommand || child.isStarted) return;
      await decide();
      if (!child.isStarted) await startWith(options.vars.get().MEDIAN_TOOLS_URL);
    },
    close: () => child.close({ graceMs: SHUTDOWN_GRACE_MS }),
    killNow: () => child.killNow(),
  };
}
