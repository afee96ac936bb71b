import type { CallRecord } from '../median/index.js';
import type { DaemonEvent, DaemonSnapshot, NewDaemonEvent } from '../events/index.js';
import { createSnapshotRecords, type NewestRecords } from './snapshot-records.js';
/** The dev server's last output lines the snapshot keeps (the whole output is in the data dir's dev-server.log). */
const SNAPSHOT_OUTPUT_LINES = 200;

/** Fans daemon events out to listeners and keeps the snapshot a new client starts from. */
export interface EventHub {
  /**
   * Stamps `at`, updates the snapshot, and hands the event to every listener.
   * A `call` event that comes stamped (callEventOf: one a call) is handed on
   * as it is, not copied.
   */
  emit(event: NewDaemonEvent | DaemonEvent): void;
  on(listener: (event: DaemonEvent) => void): () => void;
  /** The state now, with the records held in memory (with a store: only those it could not take; see snapshot-records.ts). */
  snapshot(): DaemonSnapshot;
  /**
   * What a client that attaches starts from: the state as of this call and
   * the newest records as of this call, read from the store. Events emitted
   * after the call are not in it: a client that subscribes in the same turn
   * and shows them after it has every call once.
   */
  attachSnapshot(): Promise<DaemonSnapshot>;
  /** A record the store could not take (announced from memory): later clients get it from here. */
  keepUnstored(record: CallRecord): void;
  clearRecords(): void;
}

export function createEventHub(base: {
  version: string;
  isDemo: boolean;
  keyFingerprint: string | null;
  keySource?: string | null;
  tunnelHost?: string | null;
  callCount: number;
  /** Where the newest records are read when a client attaches; left out, the hub keeps them in memory. */
  store?: NewestRecords;
  /** Without a store: the records it starts with, oldest first. */
  records?: CallRecord[];
  /** Where the dev server's output is written in full. */
  devServerLog?: string;
}): EventHub {
  const listeners = new Set<(event: DaemonEvent) => void>();
  const records = createSnapshotRecords({ ...(base.store ? { store: base.store } : {}), initial: base.records ?? [] });
  const state: Omit<DaemonSnapshot, 'records'> = {
    version: base.version,
    proxyUrl: null,
    tunnel: { state: 'connecting', url: null },
    tunnelHost: base.tunnelHost ?? null,
    toolsUrl: null,
    endpoint: null,
    heal: null,
    child: { state: 'none' },
    keyFingerprint: base.keyFingerprint,
    keySource: base.keySource ?? null,
    isDemo: base.isDemo,
    callCount: base.callCount,
    devServerOutput: [],
    ...(base.devServerLog ? { devServerLog: base.devServerLog } : {}),
  };

  function reduce(event: DaemonEvent): void {
    switch (event.event) {
      case 'proxy':
        state.proxyUrl = event.url;
        break;
      case 'tunnel':
        state.tunnel = {
          state: event.state,
          url: event.url ?? state.tunnel.url,
          ...(event.reason ? { reason: event.reason } : {}),
          ...((event.provider ?? state.tunnel.provider) ? { provider: event.provider ?? state.tunnel.provider } : {}),
        };
        break;
      case 'tools-url':
        state.toolsUrl = event.url;
        break;
      case 'heal':
        // Under way: its state, target and first start (a resumed heal says it); done: none (the endpoint events said how it ended).
        state.heal = event.state === 'done' ? null : { state: event.state, url: event.url, startedAt: event.startedAt ?? (state.heal?.url === event.url ? state.heal.startedAt : event.at) };
        break;
      case 'endpoint':
        delete state.endpointBlocked;
        if (event.action === 'removed') break;
        state.endpoint = {
          id: event.id,
          url: event.url,
          status: event.action === 'synced' ? 'synced' : event.action === 'sync-failed' || event.action === 'clash' ? 'failed' : 'pending',
          error: event.action === 'waiting' ? null : (event.error ?? null),
        };
        break;
      case 'call':
        // A repeat (same id) updates its record in place: not a new call.
        if (event.repeats === undefined) state.callCount += 1;
        records.take(event);
        break;
      case 'child':
        state.child = {
          state: event.state,
          ...(event.pid ? { pid: event.pid } : {}),
          ...(event.command ? { command: event.command } : state.child.command ? { command: state.child.command } : {}),
          // How it ended, for a client that attaches after it exited (the TUI opens its last lines then).
          ...(event.state === 'exited' ? { code: event.code ?? null, signal: event.signal ?? null, at: event.at } : {}),
        };
        break;
      case 'inspector':
        state.inspectorUrl = event.url;
        break;
      case 'target':
        state.target = { url: event.url, how: event.how, state: event.state };
        break;
      case 'key':
        state.keyFingerprint = event.fingerprint;
        state.keySource = event.fingerprint === null ? null : event.source;
        break;
      case 'output': {
        // The last lines, for a client that attaches later (`watch`, the inspector's status page).
        const lines = (state.devServerOutput ??= []);
        lines.push(event.line);
        if (lines.length > SNAPSHOT_OUTPUT_LINES) lines.splice(0, lines.length - SNAPSHOT_OUTPUT_LINES);
        break;
      }
      case 'emulator-approvals':
        state.emulatorApprovals = event.approvals;
        break;
      case 'recording':
      case 'log':
      case 'local-only':
        break;
      case 'error':
        // A client attaching later (`watch`) still sees why there is no endpoint.
        if (event.code === 'production_org') state.endpointBlocked = event.message;
        break;
      default: {
        const never: never = event;
        void never;
      }
    }
  }

  return {
    emit(input) {
      const event = input.event === 'call' && 'at' in input ? input : (Object.assign({ event: input.event, at: new Date().toISOString() }, input) as DaemonEvent);
      reduce(event);
      for (const listener of listeners) listener(event);
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    snapshot() {
      return structuredClone({ ...state, records: records.kept() });
    },
    attachSnapshot() {
      const now = structuredClone(state);
      return records.read().then((list) => ({ ...now, records: list }));
    },
    keepUnstored(record) {
      records.keepUnstored(record);
    },
    clearRecords() {
      records.clear();
    },
  };
}
