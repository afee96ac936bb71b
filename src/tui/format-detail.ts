import { verdictLabel } from '../median/approved-run.js';
import type { CallRecord } from '../median/call-record.js';
import { MAX_DETAIL_LINES, callDetailOf, callPartsOf, cutDetail, type DetailField, type DetailSection } from '../presentation/detail-sections.js';
import { formatClock, formatDuration } from '../presentation/format-time.js';
import { statusColor, verdictColor } from '../presentation/call-colors.js';
import type { Color } from '../presentation/color.js';
import { plainText, seg, wrapText, type StyledLine } from './styled-text.js';
import { parseBoundedJson, stringifySafely } from '../shared/safe-json.js';
import { DEFAULT_PASTABLE, pastableLine, type PastableCommand } from './tui-state.js';

export { MAX_DETAIL_LINES } from '../presentation/index.js';

function pretty(text: string): string {
  if (text === '') return '(empty)';
  try {
    return stringifySafely(parseBoundedJson(text), 2);
  } catch {
    return text;
  }
}

/** The text `e` opens in the editor: the call's input as pretty JSON. */
export function editableInputOf(record: CallRecord): string | undefined {
  const { input } = callPartsOf(record);
  return input === undefined ? undefined : `${stringifySafely(input, 2)}\n`;
}

function section(title: string): StyledLine {
  return [seg(`── ${title} `, 'cyan', { bold: true })];
}

/**
 * Everything about one call, for the detail pane: the sections of
 * src/presentation's callDetailOf, in its order, drawn as lines (wrapped at
 * `width` when given) and cut by its rule.
 */
export function formatDetailLines(record: CallRecord, width?: number, pastable: PastableCommand = DEFAULT_PASTABLE): StyledLine[] {
  const detail = callDetailOf(record);
  const lines: StyledLine[] = [];
  const text = (value: string, color?: Color) => {
    for (const line of width ? wrapText(value, width) : value.split('\n')) lines.push([seg(line, color)]);
  };
  const status = record.response?.status;
  lines.push([seg(detail.title, undefined, { bold: true }), seg(`  ${detail.id}`, 'gray')]);
  lines.push([
    seg(`${formatClock(record.receivedAt)}  `, 'gray'),
    seg(status === undefined ? 'no answer' : `HTTP ${status}`, statusColor(status)),
    seg('  '),
    seg(verdictLabel(record.verdict), verdictColor(record.verdict.kind), { bold: true }),
    seg(`  ${formatDuration(record.durationMs)}`),
    seg(record.risk ? `  risk ${record.risk}` : '', record.risk === 'high' || record.risk === 'reviewed' ? 'yellow' : undefined),
  ]);
  for (const problem of detail.problems) text(problem.text, problem.color);
  for (const part of detail.sections) drawSection(part, lines, text);
  return cutDetail(lines, MAX_DETAIL_LINES, (hidden) => [seg(`… ${hidden} more lines: ${pastableLine(pastable, `show ${detail.id}`)}`, 'yellow')]);
}

/** One section as the terminal draws it; the head lines above already say the verdict. */
function drawSection(part: DetailSection, lines: StyledLine[], text: (value: string, color?: Color) => void): void {
  const byKey = (key: DetailField['key']) => part.fields.find((f) => f.key === key);
  lines.push(section(part.title));
  switch (part.key) {
    case 'agent':
      text(part.text || '(nothing)', part.text ? undefined : 'gray');
      for (const f of part.fields) if (f.key !== 'verdict') text(`${f.name}: ${f.value}`, f.color);
      break;
    case 'signature': {
      const outcome = byKey('outcome');
      const age = byKey('age');
      lines.push([seg(outcome?.value ?? '', outcome?.color), seg(age && age.value !== '—' ? `  (${age.value})` : '', 'gray')]);
      for (const f of part.fields) {
        if (f.key === 'replayOf') text(`↻ replay of ${f.value}`, f.color);
        else if (f.key === 'repeated') text(f.value, f.color);
      }
      break;
    }
    case 'context':
      for (const f of part.fields) text(`${f.name} ${f.value}`, f.color);
      text(stringifySafely(part.json, 2));
      break;
    case 'input':
      text(stringifySafely(part.json, 2));
      break;
    case 'response':
    case 'request':
      for (const f of part.fields) if (f.key === 'line') text(f.value);
      if (part.key === 'request') for (const [name, value] of part.headers ?? []) text(`${name}: ${value}`, 'gray');
      if (part.body !== undefined) text(pretty(part.body));
      if (part.key === 'response') for (const [name, value] of part.headers ?? []) text(`${name}: ${value}`, 'gray');
      break;
    default: {
      const never: never = part.key;
      void never;
    }
  }
  for (const note of part.notes) text(note.text, note.color);
}

export function formatDetail(record: CallRecord, width?: number): string[] {
  return formatDetailLines(record, width).map(plainText);
}

let cached: { record: CallRecord; width: number | undefined; pastable: PastableCommand; lines: StyledLine[] } | undefined;

/** formatDetailLines, remembered for the last record and width (redraws and scrolling reuse it). */
export function detailLinesOf(record: CallRecord, width?: number, pastable: PastableCommand = DEFAULT_PASTABLE): StyledLine[] {
  if (cached?.record !== record || cached.width !== width || cached.pastable !== pastable) {
    cached = { record, width, pastable, lines: formatDetailLines(record, width, pastable) };
  }
  return cached.lines;
}
