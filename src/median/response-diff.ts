import type { CallRecord } from './call-record.js';
import { parseBoundedJson, stringifySafely } from '../shared/safe-json.js';

export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

export interface ResponseDiff {
  isSame: boolean;
  status: { original: number | null; replay: number | null };
  verdict: { original: string; replay: string };
  lines: DiffLine[];
  /** The diff as unified-style text. */
  text: string;
}

const MAX_LINES = 2_000;

function prettyLines(body: string | undefined): string[] {
  if (body === undefined) return ['(no answer)'];
  let text = body;
  try {
    text = stringifySafely(parseBoundedJson(body), 2);
  } catch {
    /* Not JSON: compare the raw text. */
  }
  return text.split('\n').slice(0, MAX_LINES);
}

/** A line diff by longest common subsequence (bodies are small: ≤ 2,000 lines each). */
export function diffLines(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const lcs: Uint16Array[] = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i]!;
    const next = lcs[i + 1]!;
    for (let j = m - 1; j >= 0; j--) {
      row[j] = a[i] === b[j] ? next[j + 1]! + 1 : Math.max(next[j]!, row[j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      out.push({ op: '-', text: a[i++]! });
    } else {
      out.push({ op: '+', text: b[j++]! });
    }
  }
  while (i < n) out.push({ op: '-', text: a[i++]! });
  while (j < m) out.push({ op: '+', text: b[j++]! });
  return out;
}

/** Compares a replay's answer with the original's. */
export function diffResponses(original: CallRecord, replay: CallRecord): ResponseDiff {
  const lines = diffLines(prettyLines(original.response?.body), prettyLines(replay.response?.body));
  const status = { original: original.response?.status ?? null, replay: replay.response?.status ?? null };
  const verdict = { original: original.verdict.kind, replay: replay.verdict.kind };
  const isSame = status.original === status.replay && lines.every((l) => l.op === ' ');
  const header = [
    `--- original ${original.toolCallId || original.id}  HTTP ${status.original ?? '—'}  ${verdict.original}`,
    `+++ replay   ${replay.toolCallId || replay.id}  HTTP ${status.replay ?? '—'}  ${verdict.replay}`,
  ];
  const text = isSame ? `${header.join('\n')}\n(the answers are the same)` : [...header, ...lines.map((l) => `${l.op} ${l.text}`)].join('\n');
  return { isSame, status, verdict, lines, text };
}
