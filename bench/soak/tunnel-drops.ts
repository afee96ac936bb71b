/**
 * Drops the tunnel on the loopback tunnel server and times the heal from the
 * CLI's own `--json` events. The kinds alternate:
 *   - `forget`: dropClient(id, {forget: true}) — the client registers again;
 *   - `refuse-name`: refuseName(id) first, so the re-registration gets another
 *     hostname and the endpoint has to be changed (PATCH) and synced again.
 * An outage lasts from the drop until the endpoint is synced at the URL of
 * the reopened tunnel; a failed call that overlaps an outage (plus a short
 * grace for answers already on their way) counts as refused during it.
 */
import type { TunnelServer } from '../../src/tunnel-server/index.js';
import type { DaemonEventLine, SoakDaemon } from './soak-daemon.js';

export type DropKind = 'forget' | 'refuse-name';

export interface DropResult {
  /** 1-based. */
  number: number;
  kind: DropKind;
  /** The fresh call index the drop came before. */
  beforeCall: number;
  at: string;
  oldName: string;
  newUrl: string | null;
  isHostnameChange: boolean | null;
  /** ms from the drop to each event (null: not seen). */
  downMs: number | null;
  openMs: number | null;
  changedMs: number | null;
  syncedMs: number | null;
  /** ms from the drop to the first answered call sent after the drop. */
  firstAnswerMs: number | null;
  /** Failed attempts counted against this outage. */
  refusedAttempts: number;
  error: string | null;
  /** The CLI's events from the drop to the sync, with ms since the drop. */
  trace: string[];
}

export interface TunnelDrops {
  drop(beforeCall: number): void;
  isOutage(): boolean;
  /** Whether an attempt from `startedAt` to `endedAt` (Date.now()) overlapped an outage; counts it against that drop. */
  claimFailure(startedAt: number, endedAt: number): boolean;
  noteAnswer(startedAt: number, endedAt: number): void;
  /** Resolves once no heal is being waited for. */
  idle(): Promise<void>;
  results(): DropResult[];
}

/** After the sync, answers refused on their way (an old URL cached for a moment) still count. */
const GRACE_MS = 500;

export function createTunnelDrops(options: {
  tunnelServer: TunnelServer;
  daemon: SoakDaemon;
  route: string;
  healTimeoutMs: number;
  /** Called when a heal fails: the soak cannot go on. */
  onHealFailed(error: Error): void;
  log(line: string): void;
}): TunnelDrops {
  const { tunnelServer, daemon } = options;
  const results: DropResult[] = [];
  const windows: Array<{ from: number; to: number; result: DropResult }> = [];
  let current: { dropAt: number; result: DropResult; healing: Promise<void> } | undefined;

  const heal = async (dropAt: number, mark: number, result: DropResult): Promise<void> => {
    const since = (event: DaemonEventLine | undefined): number | null => (event ? Date.parse(event.at) - dropAt : null);
    const find = (matches: (e: DaemonEventLine) => boolean): DaemonEventLine | undefined => daemon.events().slice(mark).find(matches);
    try {
      const open = await daemon.waitForEvent(mark, (e) => e.event === 'tunnel' && e.state === 'open', options.healTimeoutMs);
      const toolsUrl = `${open.url as string}${options.route}`;
      const synced = await daemon.waitForEvent(
        mark,
        (e) => e.event === 'endpoint' && (e.action === 'synced' || e.action === 'sync-failed') && e.url === toolsUrl,
        options.healTimeoutMs,
      );
      if (synced.action !== 'synced') throw new Error(`the endpoint's sync failed: ${String(synced.error)}`);
      result.newUrl = toolsUrl;
      result.isHostnameChange = open.isHostnameChange === true;
      result.downMs = since(find((e) => e.event === 'tunnel' && e.state === 'down'));
      result.openMs = since(open);
      result.changedMs = since(find((e) => e.event === 'endpoint' && e.action === 'changed'));
      result.syncedMs = since(synced);
      const events = daemon.events();
      result.trace = events
        .slice(mark, events.indexOf(synced) + 1)
        .map((e) => `+${since(e)}ms ${e.event}:${String(e.state ?? e.action ?? e.code ?? '')}${typeof e.reason === 'string' ? ` (${e.reason})` : ''}`);
    } catch (error) {
      result.error = error instanceof Error ? error.message : String(error);
      options.onHealFailed(new Error(`Drop ${result.number} (${result.kind}) did not heal: ${result.error}`));
    } finally {
      const window = windows.find((w) => w.result === result);
      if (window) window.to = Date.now() + GRACE_MS;
      current = undefined;
      options.log(
        `  drop ${result.number} (${result.kind}) before call ${result.beforeCall}: ${
          result.error ? `NOT healed: ${result.error}` : `open after ${result.openMs} ms, synced after ${result.syncedMs} ms${result.isHostnameChange ? ' (new hostname)' : ''}`
        }`,
      );
      for (const line of result.trace) options.log(`      ${line}`);
    }
  };

  return {
    drop(beforeCall) {
      if (current) {
        options.log(`  drop before call ${beforeCall} skipped: drop ${current.result.number} is still healing`);
        return;
      }
      const number = results.length + 1;
      const kind: DropKind = number % 2 === 1 ? 'forget' : 'refuse-name';
      const clients = tunnelServer.clients();
      const name = clients[0]?.id;
      const result: DropResult = {
        number, kind, beforeCall, at: new Date().toISOString(), oldName: name ?? '(none)', newUrl: null, isHostnameChange: null,
        downMs: null, openMs: null, changedMs: null, syncedMs: null, firstAnswerMs: null, refusedAttempts: 0, error: null, trace: [],
      };
      results.push(result);
      if (name === undefined || clients.length !== 1) {
        result.error = `expected one tunnel client, found ${clients.length}`;
        options.onHealFailed(new Error(`Drop ${number}: ${result.error}.`));
        return;
      }
      const mark = daemon.events().length;
      const dropAt = Date.now();
      windows.push({ from: dropAt, to: Number.POSITIVE_INFINITY, result });
      if (kind === 'refuse-name') tunnelServer.refuseName(name);
      tunnelServer.dropClient(name, { forget: true });
      const healing = heal(dropAt, mark, result);
      current = { dropAt, result, healing };
    },
    isOutage: () => current !== undefined,
    claimFailure(startedAt, endedAt) {
      for (let i = windows.length - 1; i >= 0; i -= 1) {
        const w = windows[i]!;
        if (endedAt >= w.from && startedAt <= w.to) {
          w.result.refusedAttempts += 1;
          return true;
        }
      }
      return false;
    },
    noteAnswer(startedAt, endedAt) {
      for (let i = windows.length - 1; i >= 0; i -= 1) {
        const w = windows[i]!;
        if (startedAt >= w.from) {
          if (w.result.firstAnswerMs === null) w.result.firstAnswerMs = endedAt - w.from;
          return;
        }
      }
    },
    async idle() {
      await current?.healing;
    },
    results: () => results,
  };
}
