import type { CallRecord } from '../median/call-record.js';
import type { SignatureStatus } from '../median/signature.js';
import { verdictLabel } from '../median/approved-run.js';
import { formatClock, formatDuration, isSlowCall } from '../presentation/format-time.js';
import { repeatMark, toolText } from '../presentation/call-labels.js';
import { signatureMark as signatureMarkOf, statusColor, verdictColor } from '../presentation/call-colors.js';
import { fit, fitLine, plainText, seg, type Segment, type StyledLine } from './styled-text.js';

/** Fixed columns: time 8, status 4, verdict 15, ms 7, signature 1, replay 1, and the gaps. */
const FIXED_WIDTH = 8 + 1 + 1 + 4 + 1 + 15 + 1 + 7 + 1 + 1 + 1 + 1;
const STATUS_WIDTH = 4;
const VERDICT_WIDTH = 15;
const MS_WIDTH = 7;

/** How wide the tool column and the call id column are (no id column on a very narrow screen). */
export function rowColumns(width: number): { tool: number; callId: number } {
  const rest = Math.max(1, width - FIXED_WIDTH);
  if (rest < 31) return { tool: rest, callId: 0 };
  // 80 columns: a 16-column id (`call_6b1b…`, a prefix `show` and `replay` take), the tool 20.
  if (rest < 44) {
    const callId = Math.min(16, rest - 21);
    return { tool: rest - callId - 1, callId };
  }
  // A call id is `call_` + 32 hex: 37 columns show it whole; the tool gets the rest (up to 48).
  const callId = Math.min(37, rest - 13);
  return { tool: Math.min(48, rest - callId - 1), callId };
}

export function signatureMark(signature: SignatureStatus): Segment {
  const mark = signatureMarkOf(signature);
  return seg(mark.text, mark.color);
}

/** One list row, exactly `width` columns: time, tool, [call id], status, verdict, ms, ✓/✗, ↻. */
export function formatRowSegments(record: CallRecord, width: number): StyledLine {
  const columns = rowColumns(width);
  const status = record.response?.status;
  const isToolCall = record.kind === 'tool-call';
  const tool = `${toolText(record)}${repeatMark(record)}`;
  const line: StyledLine = [
    seg(fit(formatClock(record.receivedAt), 8), 'gray'),
    seg(' '),
    seg(fit(tool, columns.tool), isToolCall ? undefined : 'gray', { bold: isToolCall }),
    seg(' '),
  ];
  if (columns.callId > 0) line.push(seg(fit(record.toolCallId, columns.callId), 'gray'), seg(' '));
  line.push(
    seg(fit(status === undefined ? '—' : String(status), STATUS_WIDTH), statusColor(status)),
    seg(' '),
    seg(fit(verdictLabel(record.verdict), VERDICT_WIDTH), verdictColor(record.verdict.kind)),
    seg(' '),
    seg(fit(formatDuration(record.durationMs), MS_WIDTH, 'right'), isSlowCall(record.durationMs) ? 'yellow' : undefined),
    seg(' '),
    signatureMark(record.signature),
    seg(' '),
    record.replayOf ? seg('↻', 'cyan') : seg(' '),
  );
  return fitLine(line, width);
}

export function formatRow(record: CallRecord, width: number): string {
  return plainText(formatRowSegments(record, width));
}

/** The column titles above the rows. */
export function columnTitles(width: number): StyledLine {
  const columns = rowColumns(width);
  let text = `${fit('TIME', 8)} ${fit('TOOL', columns.tool)} `;
  if (columns.callId > 0) text += `${fit('CALL ID', columns.callId)} `;
  text += `${fit('HTTP', STATUS_WIDTH)} ${fit('VERDICT', VERDICT_WIDTH)} ${fit('MS', MS_WIDTH, 'right')} ✓ ↻`;
  return fitLine([seg(text, 'gray', { bold: true })], width);
}
