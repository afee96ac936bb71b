import type { CallRecord } from '../median/call-record.js';
import type { EndpointOwner } from '../shared/endpoint-owner.js';
import type { ErrorCode } from '../shared/error-codes.js';

/**
 * Everything the daemon reports, as facts. The `--json` output prints these
 * one a line (SPEC §2.1: each has `event` and `at`); the control channel
 * streams them to `watch`; the TUI's view model reduces them.
 */
export type DaemonEvent =
  | { event: 'proxy'; at: string; url: string }
  | {
      event: 'tunnel';
      at: string;
      state: 'connecting' | 'open' | 'down' | 'closed';
      url?: string;
      reason?: string;
      subdomain?: string;
      requestedSubdomain?: string;
      /** Which provider opened it (`localtunnel`, `cloudflared`, `ngrok (…)`, …). */
      provider?: string;
      isHostnameChange?: boolean;
    }
  | { event: 'tools-url'; at: string; url: string; envFile: string | null }
  /**
   * Where a heal toward `url` is (the steps between `tunnel open` and the
   * endpoint synced): `changing` (the env file gets the URL, the dev server
   * restarts), `connecting` (waiting for its route to answer), `syncing`
   * (Change endpoint or connect, and the sync, in flight), then `done`
   * with how long it took and whether the endpoint ended synced at `url`.
   * `resumed`: a heal that ended unsynced because the dev server did not
   * answer goes on once its route answers (`syncing`, `done` again;
   * `startedAt` is the first start, the duration counts from it).
   */
  | { event: 'heal'; at: string; state: HealState | 'done'; url: string; durationMs?: number; synced?: boolean; resumed?: boolean; startedAt?: string }
  /**
   * The tunnel is not open, and the dev server runs anyway, with
   * MEDIAN_TOOLS_URL as the env file (or the last run) has it (null: none);
   * the tunnel URL and the endpoint follow once the tunnel opens. Once a run.
   */
  | { event: 'local-only'; at: string; toolsUrl: string | null; message: string }
  | {
      event: 'endpoint';
      at: string;
      /**
       * `waiting`: a sync right after median-dev (re)started the dev server or
       * it reloaded its env found it still starting (a 5xx, no answer, in
       * `error`): not a failure; median-dev syncs again for a few seconds, then
       * `synced`, or `sync-failed` once the window is over.
       */
      action: 'connected' | 'changed' | 'adopted' | 'removed' | 'synced' | 'waiting' | 'sync-failed' | 'clash';
      id: string;
      url: string;
      error?: string | null;
      tools?: { name: string; enabled: boolean }[];
      /** On `clash`: what to do, by whose the other endpoint is; on `sync-failed`: the docs' fix for the message. */
      fix?: string;
      /** On `clash`: the endpoint the tool already comes from, and whose it is (null: Median no longer lists it). */
      otherUrl?: string;
      otherOwner?: EndpointOwner | null;
      /** On `clash`: the tool name both endpoints declare. */
      tool?: string;
    }
  | {
      event: 'call';
      at: string;
      id: string;
      toolCallId: string;
      tool: string | null;
      kind?: CallRecord['kind'];
      status: number | null;
      signature: CallRecord['signature'];
      verdict: CallRecord['verdict']['kind'];
      durationMs: number | null;
      replayOf: string | null;
      /** A repeat of an earlier record (same `id`): how often it was made in all. */
      repeats?: number;
      /** The whole record (left out of --json lines; the store has it). */
      record?: CallRecord;
    }
  | {
      event: 'child';
      at: string;
      state: 'starting' | 'running' | 'exited' | 'stopped';
      pid?: number;
      code?: number | null;
      signal?: string | null;
      command?: string;
    }
  /**
   * Where the proxy sends calls (the dev server's origin) and how it is
   * known: named with --target (`flag`, also when an earlier start's), the
   * URL the dev server announced (`announced`, with its `line`), the port its
   * process tree opened (`listening`), or, when it said neither, the
   * remembered or default one (`remembered`, `default`). `state`: `finding`
   * (not known yet), `starting` (known, not listening yet), `listening`.
   * `message` is set when there is something to say (found, changed, not found).
   */
  | { event: 'target'; at: string; url: string | null; how: TargetHow; state: TargetState; line?: string; message?: string }
  /** The browser inspector listens; `link` holds a one-time token that gives a browser its session (printed once). */
  | { event: 'inspector'; at: string; url: string; link?: string }
  | { event: 'output'; at: string; stream: 'stdout' | 'stderr'; line: string }
  | { event: 'recording'; at: string; state: 'ok' | 'failing'; message?: string }
  | { event: 'log'; at: string; level: 'info' | 'warn'; message: string }
  /** The MEDIAN_KEY in use changed (a rotation in the env file): its fingerprint (null: none now) and where it came from. */
  | { event: 'key'; at: string; fingerprint: string | null; source: string | null }
  | { event: 'error'; at: string; code: ErrorCode; message: string; hint?: string }
  /** The built-in emulator's calls held for a decision, whenever that list changed (never sent for a real Median). */
  | { event: 'emulator-approvals'; at: string; approvals: EmulatorApproval[] };

/**
 * A `reviewed` or `high` call median-dev's own emulator holds for a decision
 * (`GET /v1/emulator/approvals?state=pending`). A real Median's approvals are
 * decided in Median, never here.
 */
export interface EmulatorApproval {
  /** The approval request's id (`apr_…`): the call's `toolCallId` once it runs. */
  id: string;
  tool: string;
  risk: string;
  input: Record<string, unknown>;
  conversationId: string;
  requestedAt: string;
  /** Whose decision it waits for. */
  waitingFor?: 'reviewer' | 'teammate';
}

export type DaemonEventName = DaemonEvent['event'];

/** How the dev server's origin is known (the `target` event). */
export type TargetHow = 'flag' | 'announced' | 'listening' | 'remembered' | 'default';
/** Where the dev server is in its start, as the proxy sees it. */
export type TargetState = 'finding' | 'starting' | 'listening';

/** The in-between states of a heal, in the order they come. */
export type HealState = 'changing' | 'connecting' | 'syncing';

/** A heal under way: its state, its target tools URL, and when it began. */
export interface HealUnderWay {
  state: HealState;
  url: string;
  startedAt: string;
}

/** An event as a part emits it: the event hub stamps `at` when it fans it out. */
export type NewDaemonEvent = DaemonEvent extends infer E ? (E extends DaemonEvent ? Omit<E, 'at'> : never) : never;

/** The state a `watch` client or the TUI starts from before live events. */
export interface DaemonSnapshot {
  version: string;
  proxyUrl: string | null;
  tunnel: { state: 'connecting' | 'open' | 'down' | 'closed'; url: string | null; reason?: string; /** The provider that last opened it (`cloudflared`, `ngrok (<domain>)`, …). */ provider?: string };
  /** The localtunnel server in use (`--tunnel-host`), null with another provider: how a public name with no DNS here is reached. */
  tunnelHost?: string | null;
  toolsUrl: string | null;
  endpoint: { id: string; url: string; status: string; error: string | null } | null;
  /** A heal under way (its `endpoint` is still the old one's state); absent or null when none is. */
  heal?: HealUnderWay | null;
  /** Why no endpoint is connected, when the production guard stopped it (the `production_org` error's message); absent otherwise. */
  endpointBlocked?: string;
  /** `code`, `signal` and `at` (when): how it ended, once it exited by itself. */
  child: { state: 'none' | 'starting' | 'running' | 'exited' | 'stopped'; pid?: number; command?: string; code?: number | null; signal?: string | null; at?: string };
  /** The dev server's origin as the proxy knows it (the last `target` event); absent until one came. */
  target?: { url: string | null; how: TargetHow; state: TargetState } | null;
  /** `…abcd`, or null when no key is set. */
  keyFingerprint: string | null;
  /** Where that key came from: `environment`, or the env file (as a path from the project folder). */
  keySource?: string | null;
  isDemo: boolean;
  /** The browser inspector's URL (no token), when it listens. */
  inspectorUrl?: string | null;
  callCount: number;
  /** The newest records, oldest first (at most a few hundred). */
  records: CallRecord[];
  /** The dev server's last output lines (masked), oldest first. */
  devServerOutput?: string[];
  /** The file in the data dir that holds its whole output. */
  devServerLog?: string;
  /** Calls the built-in emulator holds for a decision, oldest first; absent when the API is not the emulator. */
  emulatorApprovals?: EmulatorApproval[];
}

/**
 * The tunnel never gave a URL this run, and the dev server runs anyway (the
 * `local-only` case): the TUI header and the inspector say it can be used
 * locally meanwhile.
 */
export function isDevServerLocalOnly(state: Pick<DaemonSnapshot, 'tunnel' | 'toolsUrl' | 'child'>): boolean {
  return state.tunnel.state !== 'open' && state.toolsUrl === null && (state.child.state === 'running' || state.child.state === 'starting');
}

/** Commands a client sends over the control channel. */
export type ControlCommand =
  | { command: 'replay'; toolCallId: string; newId?: boolean; input?: unknown; atOffsetMs?: number; confirmed?: boolean; allowUnsignedOriginal?: boolean }
  | { command: 'sync' }
  | { command: 'restart-child' }
  | { command: 'diagnostics' }
  | { command: 'simulate-hostname-change' }
  | { command: 'clear' }
  /** A fresh one-time inspector link (`median-dev inspect`). */
  | { command: 'inspector-link' }
  /** Approve or deny a call the built-in emulator holds (`as`: the teammate's name, the call's `approvedBy`). */
  | { command: 'emulator-decision'; id: string; decision: 'approve' | 'deny'; as?: string };

/**
 * Who decided a held call, by where it was decided: the emulator records it
 * (the call's `approvedBy`, the request's `decidedBy`, the conversation's
 * thread) and every screen names it. `median-dev emulate approve|deny`
 * names its own (`--as`, default `A teammate`).
 */
export const DECIDERS = {
  tui: 'You, in the terminal UI',
  inspector: 'You, in the inspector',
} as const;

/** What the daemon answers to `emulator-decision`: the decision, and for an approval how its run went. */
export interface EmulatorDecisionAnswer {
  id: string;
  decision: 'approve' | 'deny';
  tool: string;
  /** Who decided (the call's `approvedBy` once approved). */
  by: string;
  /** Approved: the route's HTTP status (null: no answer, or the run never reached it). */
  status?: number | null;
  verdict?: string;
  /** Approved and failed before or at the route: what the thread shows (`<tool> did not run: …`). */
  didNotRun?: string;
}
