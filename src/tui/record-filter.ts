import type { CallRecord } from '../median/call-record.js';
import { recordMatches, type RecordFilter } from '../median/record-filter.js';
import { AppendOnlyList } from './append-only-list.js';
import type { RecordList } from './record-list.js';

export { parseFilter, recordMatches, type RecordFilter, type FilterTerm, type FilterField } from '../median/index.js';

/**
 * The records a filter lets through, as indices into the record list (oldest
 * first), kept up to date incrementally: `scanned` records have been looked at.
 * Match positions are absolute like the list's indices: matches of records
 * that dropped off the list's window are dropped too (below `matches.start`).
 */
export interface FilteredView {
  filter: RecordFilter;
  matches: AppendOnlyList<number>;
  scanned: number;
}

export function buildFilteredView(filter: RecordFilter, records: RecordList): FilteredView {
  return extendFilteredView({ filter, matches: AppendOnlyList.empty(), scanned: 0 }, records);
}

/** Looks at the records added since the view was last brought up to date. */
export function extendFilteredView(view: FilteredView, records: RecordList): FilteredView {
  const isCurrent = view.scanned === records.length && !((view.matches.at(view.matches.start) ?? records.start) < records.start);
  if (isCurrent) return view;
  let matches = view.matches;
  for (let i = Math.max(view.scanned, records.start); i < records.length; i++) {
    if (recordMatches(records.at(i) as CallRecord, view.filter)) matches = matches.push(i);
  }
  // Matches are in record order: the dropped ones are a prefix.
  let kept = matches.start;
  while (kept < matches.length && (matches.at(kept) as number) < records.start) kept += 1;
  return { filter: view.filter, matches: matches.dropBefore(kept), scanned: records.length };
}

/** Position of a record index among the matches (binary search), or undefined. */
export function matchPosition(view: FilteredView, recordIndex: number): number | undefined {
  let low = view.matches.start;
  let high = view.matches.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const value = view.matches.at(mid) as number;
    if (value === recordIndex) return mid;
    if (value < recordIndex) low = mid + 1;
    else high = mid - 1;
  }
  return undefined;
}
