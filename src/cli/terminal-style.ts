import type { VerdictKind } from '../median/verdict-types.js';
import type { SignatureStatus } from '../median/signature.js';
import { verdictColor } from '../presentation/call-colors.js';

/** ANSI styling that turns itself off (NO_COLOR, not a TTY). */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string) => text;

export function createStyle(enabled: boolean): Style {
  if (!enabled) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain, magenta: plain };
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    magenta: wrap(35, 39),
  };
}

/** `label`: what to print in the kind's colour (a failed approved call shows `did-not-run`); the colour is every screen's (src/presentation). */
export function styleVerdict(style: Style, kind: VerdictKind, label: string = kind): string {
  return styleColoured(style, [{ text: label, fg: verdictColor(kind) }]);
}

export function styleSignature(style: Style, signature: SignatureStatus): string {
  if (signature === 'valid') return style.green('✓ valid');
  if (signature === 'unchecked') return style.dim('unchecked');
  return style.red(`✗ ${signature}`);
}

/** Visible length of a string with ANSI codes. */
export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

/** Rows of cells, padded into aligned columns. */
export function formatTable(header: string[], rows: string[][], style: Style): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => visibleLength(r[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleLength(cell))))
      .join('  ')
      .trimEnd();
  return [style.bold(line(header)), ...rows.map(line)].join('\n');
}

/** A run of text with a colour name, as the terminal UI's rows are made (src/tui's `Segment`). */
export interface ColouredText {
  text: string;
  fg?: string;
  bold?: boolean;
}

/** Text in the terminal UI's colours, with this style (grey is dim; no colour without a terminal). */
export function styleColoured(style: Style, line: readonly ColouredText[]): string {
  const colour: Record<string, (text: string) => string> = {
    gray: style.dim,
    red: style.red,
    green: style.green,
    yellow: style.yellow,
    cyan: style.cyan,
    blue: style.cyan,
    magenta: style.magenta,
  };
  return line
    .map((part) => {
      const coloured = part.fg && colour[part.fg] ? colour[part.fg]!(part.text) : part.text;
      return part.bold ? style.bold(coloured) : coloured;
    })
    .join('');
}
