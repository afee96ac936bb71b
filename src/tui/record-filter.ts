import type { CallRecord } from '../median/call-record.js';
import { recordMatches, type RecordFilter } from '../median/record-filter.js';
import { AppendOnlyList, type RecordList } from './record-list.js';

export { parseFilter, recordMatches, type RecordFilter, type FilterTerm, type FilterField } from '../median/index.js';

/**
 * The records a filter lets through, as indices into the record list (oldest
 * first), kept up to date incrementally: `scanned` records have been looked at.
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
  if (view.scanned === records.length) return view;
  let matches = view.matches;
  for (let i = view.scanned; i < records.length; i++) {
    if (recordMatches(records.at(i) as CallRecord, view.filter)) matches = matches.push(i);
  }
  return { filter: view.filter, matches, scanned: records.length };
}

/** Position of a record index among the matches (binary search), or undefined. */
export function matchPosition(view: FilteredView, recordIndex: number): number | undefined {
  let low = 0;
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
