import type { ControlCommand } from './daemon-events.js';

/**
 * What happened, as the daemon's parts report it (past tense). Parts never
 * call each other: they report a fact, and the daemon's one dispatch
 * (src/daemon/dispatch.ts) decides what happens next, in one `switch`.
 *
 * A new reaction is a new case there; a new kind of news is a new member here.
 */
export type DaemonFact =
  /** The daemon is up (proxy, control channel, watcher); the tunnel is opening. */
  | { type: 'daemon.started' }
  /** The tunnel carries requests at `origin` (first open, reopen, or a new hostname). */
  | { type: 'tunnel.opened'; origin: string; isHostnameChange: boolean }
  /** The tunnel's first open failed (`isFinal`: no more tries); it has never been open this run. */
  | { type: 'tunnel.openFailed'; isFinal: boolean }
  /** The tunnel stopped carrying requests; it reopens by itself. */
  | { type: 'tunnel.lost'; reason: string }
  /** The env file was edited (it may hold a new MEDIAN_KEY). */
  | { type: 'envFile.changed' }
  /** MEDIAN_KEY in the env file is another one now (undefined: removed). */
  /** `source`: the file of the env cascade the key now comes from (undefined: none sets it). */
  | { type: 'envFile.keyChanged'; key: string | undefined; source?: string | undefined }
  /** Files matched by --watch changed. */
  | { type: 'files.changed'; count: number }
  /** The dev server exited by itself (not stopped by us). */
  | { type: 'child.exited'; code: number | null; signal: string | null }
  /** The route at `toolsUrl` answers again after the endpoint could not be fixed without it. */
  | { type: 'route.answering'; toolsUrl: string }
  /** A client sent a command over the control channel (or the TUI did). */
  | { type: 'command.received'; command: ControlCommand }
  /** SIGINT/SIGTERM, `q` in the TUI, or close(): stop everything in order. */
  | { type: 'shutdown.requested' };

export type DaemonFactType = DaemonFact['type'];
export type DaemonFactOf<T extends DaemonFactType> = Extract<DaemonFact, { type: T }>;
