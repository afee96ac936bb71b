import { buildChildEnv, createChildKeeper } from '../child/index.js';
import { readProjectState, type StartConfig } from '../config/index.js';
import { waitForRoute } from '../endpoints/index.js';
import type { DaemonFact, NewDaemonEvent } from '../events/index.js';
import type { Logger } from '../shared/logger.js';
import type { EnvVars } from './env-vars.js';

/**
 * On shutdown the dev server gets 2 s after SIGTERM before SIGKILL (restarts
 * give it 5 s), so SIGINT still exits within the 3 s the SPEC promises.
 */
const SHUTDOWN_GRACE_MS = 2_000;

export interface ChildRestartPolicyOptions {
  config: Pick<StartConfig, 'cwd' | 'target' | 'route' | 'dataDir' | 'keySource'>;
  command: string[];
  /** The daemon's own pid: the owner written beside the child's, so only a dead owner's child is ever reaped. */
  daemonPid: number;
  baseEnv: Readonly<Record<string, string | undefined>>;
  vars: EnvVars;
  /** The MEDIAN_KEY in use (an env-file key is passed on to the dev server). */
  key(): string | undefined;
  emit(event: NewDaemonEvent): void;
  /** Where `child.exited` goes (the daemon's dispatch). */
  report(fact: DaemonFact): void;
  logger: Logger;
  signal: AbortSignal;
  timing: Partial<{ routeReadyTimeoutMs: number; childStopGraceMs: number }>;
}

/**
 * When the dev server (re)starts, with which MEDIAN_TOOLS_URL, and waiting
 * for its route to answer: steps 2 and 3 of a URL change, and of a key rotation.
 */
export interface ChildRestartPolicy {
  readonly hasCommand: boolean;
  readonly isStarted: boolean;
  /** Restarts the dev server with MEDIAN_TOOLS_URL=`url`, unless it already runs with it. */
  restartFor(url: string): Promise<void>;
  /** Waits until the route answers, the dev server exits, or the wait times out; at once without a command. */
  waitUntilAnswering(): Promise<void>;
  /** Starts the dev server at the last run's tools URL, so it compiles while the tunnel opens. */
  startAtRememberedUrl(): Promise<void>;
  /** Restarts with the current environment (`R`, a key rotation). */
  restart(): Promise<void>;
  /** Stops the dev server with the short shutdown grace. */
  close(): Promise<void>;
  /** SIGKILLs its tree at once (a second Ctrl-C). */
  killNow(): void;
}

export function createChildRestartPolicy(options: ChildRestartPolicyOptions): ChildRestartPolicy {
  const { config, timing } = options;
  /** The MEDIAN_TOOLS_URL the running dev server got. */
  let childUrl: string | undefined;
  const child = createChildKeeper({
    command: options.command,
    cwd: config.cwd,
    env: () => {
      const key = options.key();
      return buildChildEnv(options.baseEnv, options.vars.get(), childUrl, config.keySource === 'env-file' && key ? { MEDIAN_KEY: key } : {});
    },
    emit: (event) => {
      options.emit(event);
      if (event.event === 'child' && event.state === 'exited') options.report({ type: 'child.exited', code: event.code ?? null, signal: event.signal ?? null });
    },
    logger: options.logger,
    orphanNote: { dataDir: config.dataDir, ownerPid: options.daemonPid },
    ...(timing.childStopGraceMs ? { stopGraceMs: timing.childStopGraceMs } : {}),
  });

  return {
    get hasCommand() {
      return child.hasCommand;
    },
    get isStarted() {
      return child.isStarted;
    },
    async restartFor(url) {
      if (!child.hasCommand || (url === childUrl && child.isStarted)) return;
      childUrl = url;
      await child.restart();
    },
    async waitUntilAnswering() {
      if (!child.hasCommand) return;
      // The endpoint's sync reaches the route only once the restarted dev server answers.
      await waitForRoute({
        url: `${config.target}${config.route}`,
        timeoutMs: timing.routeReadyTimeoutMs ?? 60_000,
        isWorthWaiting: () => child.isRunning,
        signal: options.signal,
      });
    },
    async startAtRememberedUrl() {
      if (!child.hasCommand || child.isStarted) return;
      const previous = await readProjectState(config.dataDir);
      if (!previous.toolsUrl?.endsWith(config.route) || child.isStarted) return;
      childUrl = previous.toolsUrl;
      await child.restart();
    },
    restart: () => child.restart(),
    close: () => child.close({ graceMs: SHUTDOWN_GRACE_MS }),
    killNow: () => child.killNow(),
  };
}
