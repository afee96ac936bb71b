import type { EnvFileSnapshot, StartConfig } from '../config/index.js';
import type { ControlCommand, DaemonEvent, DaemonSnapshot } from '../events/index.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import type { TunnelTuning } from './tunnel-keeper.js';

export interface DaemonOptions {
  config: StartConfig;
  /** The dev server command (after `--`), or empty. */
  childCommand: string[];
  /** The environment the child inherits (the CLI passes process.env). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  version: string;
  /** This process's pid, written to control.json (the CLI passes process.pid). */
  pid: number;
  logger?: Logger;
  isDemo?: boolean;
  /** Test and demo knobs. */
  timing?: Partial<{
    routeReadyTimeoutMs: number;
    syncTimeoutMs: number;
    childStopGraceMs: number;
    watchDebounceMs: number;
    /** Median's wait for a call's answer, as the proxy judges it (default 10 s). */
    callTimeoutMs: number;
    /** The longest wait between two looks at a dev server that did not answer (default 30 s). */
    routeRecheckMaxMs: number;
    /** The pause before the emulator's held approvals are asked for again after an error, or from an emulator without the long poll (default 1.5 s). */
    approvalPollMs: number;
    /** How long a dev server may say nothing about where it listens before the remembered or default target is tried (default 10 s). */
    targetFallbackMs: number;
  }>;
  /**
   * The clock every time-driven part waits on (tests drive it); real time when
   * left out: the emulator's approvals watch, the tunnel (backoff, probes, the
   * providers' open timeouts), Median's API client and its retries, the wait
   * for the route and its re-checks, the dev server's stop grace and env
   * reload wait, and the dev-server target finder's looks and fallbacks.
   */
  clock?: Clock;
  /**
   * The env file's settled read, begun by the CLI as soon as it knew the
   * config (settleEnvFileEarly), while the daemon's modules load and the
   * tunnel registers: the env file is written the moment the tunnel opens.
   * Left out, the daemon begins it itself as it starts.
   */
  settledEnvFile?: Promise<EnvFileSnapshot | undefined>;
  /** Tunnel knobs (tests: fast backoff; demo: the hostname-change hook). */
  tunnel?: TunnelTuning;
  /**
   * A listener from the start's first event on, called as each event
   * happens (the CLI's `--json` and `--no-tui` lines): the tunnel, the env
   * file and the dev server start before startDaemon resolves, and a start
   * killed in between has said what it did by then.
   */
  onEvent?: (event: DaemonEvent) => void;
}

export interface Daemon {
  /**
   * Subscribe right after startDaemon resolved: such a listener gets every
   * event from the start's `proxy` on (those of the start so far first, in
   * order, then the live ones). A later listener starts from the snapshot.
   */
  events: { on(listener: (event: DaemonEvent) => void): () => void };
  /** Says something as a `log` event (the demo tells what its emulated organisation does). */
  note(message: string, level?: 'info' | 'warn'): void;
  /** The state now; its records are only those the store could not take (the newest are read by `attachSnapshot`). */
  snapshot(): DaemonSnapshot;
  /** What a client that attaches starts from (the state and the newest records, read from the store, as of this call): see EventHub. */
  attachSnapshot(): Promise<DaemonSnapshot>;
  proxyUrl: string;
  instanceId: string;
  /** What the control channel and the TUI send (replay, sync, …). */
  handleCommand(command: ControlCommand): Promise<unknown>;
  /** A second Ctrl-C: kill the dev server's tree at once, before the process exits. */
  killNow(): void;
  /** Resolves once close() has finished. */
  closed: Promise<void>;
  /** Closes everything in order; the endpoint stays registered for the next start. */
  close(): Promise<void>;
}
