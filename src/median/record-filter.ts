import type { CallRecord } from './call-record.js';
import { verdictLabel } from './approved-run.js';

/**
 * The call filter language: the TUI's `/` filter and `median-dev calls`
 * (one parser for both). Words separated by spaces must all match (case does not
 * matter); a leading `-` negates a word. Words:
 *   tool:<part>     the tool name contains <part>
 *   verdict:<kind>  the verdict starts with <kind> (`verdict:ref` = refused)
 *   status:<code>   `500`, `5xx`, or `none` (no answer)
 *   sig:<part>      the signature status contains <part> (`sig:invalid`, `sig:stale`)
 *   risk:<risk>     the call's risk
 *   is:<what>       `replay`, `warning`, `error` (not answered), or a request kind
 *   anything else   appears anywhere in the record (tool, ids, bodies, what the agent sees…)
 */
export interface RecordFilter {
  text: string;
  terms: FilterTerm[];
}

export type FilterField = 'tool' | 'verdict' | 'status' | 'sig' | 'risk' | 'is' | 'text';

export interface FilterTerm {
  field: FilterField;
  value: string;
  isNegated: boolean;
}

const FIELD_ALIASES: Record<string, FilterField> = {
  tool: 'tool',
  verdict: 'verdict',
  status: 'status',
  sig: 'sig',
  signature: 'sig',
  risk: 'risk',
  is: 'is',
};

/** The filter a text stands for, or null when it is blank. */
export function parseFilter(text: string): RecordFilter | null {
  const words = text.trim().toLowerCase().split(/\s+/).filter((word) => word !== '' && word !== '-');
  if (words.length === 0) return null;
  const terms = words.map((word): FilterTerm => {
    const isNegated = word.startsWith('-');
    const body = isNegated ? word.slice(1) : word;
    const colon = body.indexOf(':');
    const field = colon > 0 ? FIELD_ALIASES[body.slice(0, colon)] : undefined;
    if (field && colon < body.length - 1) return { field, value: body.slice(colon + 1), isNegated };
    return { field: 'text', value: body, isNegated };
  });
  return { text: text.trim(), terms };
}

export function recordMatches(record: CallRecord, filter: RecordFilter): boolean {
  for (const term of filter.terms) {
    if (termMatches(record, term) === term.isNegated) return false;
  }
  return true;
}

function termMatches(record: CallRecord, term: FilterTerm): boolean {
  const { value } = term;
  switch (term.field) {
    case 'tool':
      return (record.tool ?? '').toLowerCase().includes(value);
    case 'verdict':
      // A failed approved call matches its kind and `did-not-run`, its label.
      return record.verdict.kind.startsWith(value) || verdictLabel(record.verdict).startsWith(value);
    case 'status': {
      const status = record.response?.status;
      if (value === 'none') return status === undefined;
      if (status === undefined) return false;
      if (/^\dxx$/.test(value)) return String(status)[0] === value[0];
      return String(status) === value;
    }
    case 'sig':
      return record.signature.includes(value);
    case 'risk':
      return record.risk === value;
    case 'is':
      if (value === 'replay') return record.replayOf !== null;
      if (value === 'warning' || value === 'warnings') return record.verdict.warnings.length > 0;
      if (value === 'error') return record.verdict.kind !== 'answered';
      return record.kind === value;
    case 'text':
      return searchTextOf(record).includes(value);
    default: {
      const never: never = term.field;
      return never;
    }
  }
}

const searchTexts = new WeakMap<CallRecord, string>();

/** Everything a plain word can match, lower-cased; computed once a record. */
function searchTextOf(record: CallRecord): string {
  let text = searchTexts.get(record);
  if (text === undefined) {
    text = [
      record.id,
      record.toolCallId,
      record.tool ?? '',
      record.kind,
      record.conversationId ?? '',
      record.risk ?? '',
      record.verdict.kind,
      record.verdict.agentSees,
      record.verdict.callError ?? '',
      ...record.verdict.warnings.map((warning) => `${warning.code} ${warning.message}`),
      record.signature,
      record.response ? String(record.response.status) : '',
      record.request.path,
      record.request.body,
      record.response?.body ?? '',
      record.error ? `${record.error.code} ${record.error.message}` : '',
      record.replayOf ?? '',
    ]
      .join('\n')
      .toLowerCase();
    searchTexts.set(record, text);
  }
  return text;
}
