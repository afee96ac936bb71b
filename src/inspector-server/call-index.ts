import type { CallRecord } from '../median/index.js';
import { rowOf, type CallPage, type CallRow } from '../events/inspector-api.js';

/** Tells whether a record passes a filter; built by the one filter parser the TUI and `calls` use. */
export type RecordMatcher = (record: CallRecord) => boolean;

export interface CallIndexOptions {
  /** The filter a text stands for (null: blank); throws a coded error for a bad one. */
  matcherFor(text: string): RecordMatcher | null;
  /** Every stored record, newest first (the filter reads bodies, which rows leave out). */
  scanRecords(): AsyncIterable<CallRecord>;
  /** Rows kept at most (oldest dropped). */
  maxRows?: number;
}

/**
 * The list the inspector pages through: one small row per recorded call,
 * oldest first in memory, served newest first. Filtered views are worked out
 * once per filter text (one pass over the store, since a plain word matches
 * bodies) and then kept up to date as calls arrive.
 *
 * Cold until `load()`: a daemon whose inspector no browser opened keeps no
 * row (they were ~350 bytes a call, the most of its heap's growth); the store
 * has every record (stored before its event), and `load()` reads them.
 */
export interface CallIndex {
  /** Fills the index from the store (newest first); calls added meanwhile are kept once. Idempotent. */
  load(): Promise<void>;
  /** The record's row; kept once `load()` was called (before, the store is the list). */
  add(record: CallRecord): CallRow;
  /** Whether it keeps the rows `add` gives (`load()` was called). */
  isKeeping(): boolean;
  /** Rows the index holds. */
  size(): number;
  page(query: { offset: number; limit: number; filter: string }): Promise<CallPage>;
  /** Record ids of the filtered list, newest first (the HAR export). */
  ids(filter: string, limit: number): Promise<string[]>;
}

interface FilteredView {
  text: string;
  matcher: RecordMatcher;
  /** Indices into rows (ascending) that match. */
  positions: number[];
}

const DEFAULT_MAX_ROWS = 100_000;
/** Rows dropped at once when the index is full, so trimming is rare. */
const TRIM_CHUNK = 1_000;
/** Filtered views kept (the filter box's recent texts). */
const MAX_VIEWS = 4;

export function createCallIndex(options: CallIndexOptions): CallIndex {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  let rows: CallRow[] = [];
  let ids = new Set<string>();
  let views: FilteredView[] = [];
  let loading: Promise<void> | undefined;
  const scans = new Set<CallRecord[]>();

  function trim(): void {
    if (rows.length <= maxRows) return;
    const drop = Math.min(rows.length, rows.length - maxRows + TRIM_CHUNK);
    for (const row of rows.slice(0, drop)) ids.delete(row.id);
    rows = rows.slice(drop);
    views = [];
  }

  async function viewFor(text: string): Promise<FilteredView | null> {
    const trimmed = text.trim();
    const matcher = options.matcherFor(trimmed);
    if (matcher === null) return null;
    await load();
    const known = views.find((view) => view.text === trimmed);
    if (known) return known;
    const matching = new Set<string>();
    // Calls that arrive while the store is read are matched as they come.
    const arriving: CallRecord[] = [];
    scans.add(arriving);
    try {
      for await (const record of options.scanRecords()) {
        if (matcher(record)) matching.add(record.id);
      }
    } finally {
      scans.delete(arriving);
    }
    for (const record of arriving) if (matcher(record)) matching.add(record.id);
    const positions: number[] = [];
    for (let i = 0; i < rows.length; i++) if (matching.has(rows[i]!.id)) positions.push(i);
    const view: FilteredView = { text: trimmed, matcher, positions };
    views = [view, ...views.filter((v) => v.text !== trimmed)].slice(0, MAX_VIEWS);
    return view;
  }

  function load(): Promise<void> {
    loading ??= (async () => {
      const loaded: CallRow[] = [];
      for await (const record of options.scanRecords()) {
        if (loaded.length >= maxRows) break;
        loaded.push(rowOf(record));
      }
      loaded.reverse();
      const live = rows;
      const liveIds = new Set(live.map((row) => row.id));
      rows = loaded.filter((row) => !liveIds.has(row.id)).concat(live);
      ids = new Set(rows.map((row) => row.id));
      views = [];
      trim();
    })();
    return loading;
  }

  return {
    load,
    add(record) {
      const row = rowOf(record);
      if (!loading) return row;
      if (ids.has(row.id)) {
        // A repeat (same id, a higher count): the row is replaced where it stands.
        const at = rows.findIndex((r) => r.id === row.id);
        if (at >= 0) rows[at] = row;
        return row;
      }
      ids.add(row.id);
      rows.push(row);
      for (const arriving of scans) arriving.push(record);
      for (const view of views) if (view.matcher(record)) view.positions.push(rows.length - 1);
      trim();
      return row;
    },
    isKeeping: () => loading !== undefined,
    size: () => rows.length,
    async page({ offset, limit, filter }) {
      await load();
      const view = await viewFor(filter);
      const total = view ? view.positions.length : rows.length;
      const start = Math.max(0, Math.min(offset, total));
      const end = Math.min(total, start + Math.max(0, limit));
      const page: CallRow[] = [];
      for (let k = start; k < end; k++) {
        const at = view ? view.positions[view.positions.length - 1 - k]! : rows.length - 1 - k;
        page.push(rows[at]!);
      }
      return { total, recorded: rows.length, offset: start, rows: page, filter: view?.text ?? '' };
    },
    async ids(filter, limit) {
      const page = await this.page({ offset: 0, limit, filter });
      return page.rows.map((row) => row.id);
    },
  };
}
