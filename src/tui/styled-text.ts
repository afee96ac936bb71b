import type { Color } from '../presentation/color.js';

/**
 * Text with colour, as plain data. The view model builds lines of segments;
 * only the blessed adapter (screen.ts) turns them into terminal attributes.
 * Every character counts as one column (tool names, ids and our marks are
 * all single-width).
 */
export type { Color };

export interface Segment {
  text: string;
  fg?: Color;
  bold?: boolean;
  inverse?: boolean;
}

export type StyledLine = Segment[];

export function seg(text: string, fg?: Color, extra: { bold?: boolean } = {}): Segment {
  const segment: Segment = { text };
  if (fg) segment.fg = fg;
  if (extra.bold) segment.bold = true;
  return segment;
}

export function plainText(line: StyledLine): string {
  let text = '';
  for (const segment of line) text += segment.text;
  return text;
}

export function lineWidth(line: StyledLine): number {
  let width = 0;
  for (const segment of line) width += segment.text.length;
  return width;
}

/** Cuts `text` to `width` columns, ending in `…` when it was longer. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (text.length <= width) return text;
  return width === 1 ? '…' : `${text.slice(0, width - 1)}…`;
}

/** Exactly `width` columns: cut with `…`, then padded on the right (or left). */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const cut = truncate(text, width);
  const pad = ' '.repeat(Math.max(0, width - cut.length));
  return align === 'left' ? cut + pad : pad + cut;
}

/** A line made exactly `width` columns wide: cut (keeping styles) or padded. */
export function fitLine(line: StyledLine, width: number): StyledLine {
  const total = lineWidth(line);
  if (total === width) return line;
  if (total < width) return [...line, { text: ' '.repeat(width - total) }];
  const out: StyledLine = [];
  let left = Math.max(0, width - 1);
  for (const segment of line) {
    if (left <= 0) break;
    const text = segment.text.slice(0, left);
    out.push({ ...segment, text });
    left -= text.length;
  }
  if (width > 0) out.push({ text: '…' });
  return out;
}

/** The same line with every segment drawn inverted (the selected row). */
export function invert(line: StyledLine): StyledLine {
  return line.map((segment) => ({ ...segment, inverse: true }));
}

/** Hard-wraps plain text at `width` columns (tabs become two spaces). */
export function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\t/g, '  ').replace(/\r$/, '');
    if (width <= 0 || line.length <= width) {
      out.push(line);
      continue;
    }
    for (let start = 0; start < line.length; start += width) out.push(line.slice(start, start + width));
  }
  return out;
}

/**
 * Wraps text at spaces into lines of at most `width` columns; a word longer
 * than a line is cut hard. `indent` starts every line but the first (a
 * hanging indent, for prose). `continuation` (` \`) ends every line but the
 * last, so a wrapped shell command pasted line by line stays one command: a
 * line cut inside a word ends in the backslash alone, which the shell joins
 * without a space.
 */
export function wrapWords(text: string, width: number, options: { indent?: number; continuation?: string } = {}): string[] {
  if (width <= 0 || text.length <= width) return [text];
  const tail = options.continuation ?? '';
  const room = Math.max(1, width - tail.length);
  const pad = ' '.repeat(Math.max(0, Math.min(options.indent ?? 0, room - 1)));
  const lines: { text: string; isCut: boolean }[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '') {
      if (line.length + 1 + word.length <= room) {
        line = `${line} ${word}`;
        continue;
      }
      lines.push({ text: line, isCut: false });
    }
    let rest = `${lines.length === 0 ? '' : pad}${word}`;
    while (rest.length > room) {
      lines.push({ text: rest.slice(0, room), isCut: true });
      rest = `${pad}${rest.slice(room)}`;
    }
    line = rest;
  }
  lines.push({ text: line, isCut: false });
  return lines.map((one, index) => (index === lines.length - 1 ? one.text : `${one.text}${one.isCut ? tail.trimStart() : tail}`));
}
