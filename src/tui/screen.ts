import type { Readable, Writable } from 'node:stream';
import { createRequire } from 'node:module';
import type blessed from 'blessed';
import { HIDING_CHARS } from '../shared/output-sanitiser.js';
import { guardEmits } from './guard-emits.js';
import { keyName, type RawKey } from './key-names.js';
import type { Frame, PanelName } from './render-frame.js';
import type { Color, StyledLine } from './styled-text.js';
import type { TuiKey } from './tui-actions.js';

/**
 * The one file that imports blessed: it draws a Frame (plain data from
 * render-frame.ts) and reports keys and resizes. Nothing here decides what
 * is on screen.
 */
export interface TerminalScreenOptions {
  input: Readable;
  output: Writable;
  /** Size to use when the output does not report one (a PassThrough in tests). */
  width?: number;
  height?: number;
  /** Terminal type (`xterm-256color`); left out, blessed uses its default. */
  terminal?: string;
  /** Draw ✓ ✗ ↻ as they are (default true); false falls back to what the terminfo says. */
  isUnicode?: boolean;
}

export interface TerminalScreen {
  readonly width: number;
  readonly height: number;
  draw(frame: Frame): void;
  onKey(listener: (key: TuiKey) => void): void;
  onResize(listener: (width: number, height: number) => void): void;
  /**
   * Writing a frame to the terminal, or taking its input or a resize, failed
   * where no caller could catch it (blessed flushes on the next turn, and
   * parses input and resizes in the streams' own listeners).
   */
  onFailure(listener: (error: unknown) => void): void;
  /** Hands the terminal back (normal screen, cooked mode) until the returned function is called. */
  suspend(): () => void;
  /** Writes a control sequence that draws nothing (OSC 52), tmux-wrapped when needed. */
  writeControl(sequence: string): void;
  /** The characters on screen, one string a row (what the last draw left). */
  text(): string[];
  /** Leaves the alternate screen, shows the cursor, restores the input mode. Idempotent. */
  destroy(): void;
  /** After a failure: tears down writing nothing more to the terminal (whose owner restores it). */
  abandon(): void;
}

type Cell = [number, string];

const PANEL_NAMES: PanelName[] = ['header', 'list', 'detail', 'footer'];

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/g;

/** Recorded text is untrusted: control characters (an ESC in a body) and characters that hide or reorder text must not reach the terminal. */
function escapeTags(text: string): string {
  return text.replace(CONTROL_CHARS, '\ufffd').replace(HIDING_CHARS, '\ufffd').replace(/[{}]/g, (brace) => (brace === '{' ? '{open}' : '{close}'));
}

/**
 * blessed reads only the terminfo format of ncurses 5: the files ncurses 6
 * writes (32-bit numbers, Debian 12 and later, Homebrew) fail to parse, and
 * blessed falls back to its bundled entries: `xterm-256color` for that name,
 * its 8-colour `xterm` for every other, so `tmux-256color` and
 * `screen-256color` drew grey as colour 0, black (`ESC[30m`), and
 * `screen-256color` printed a compile error on stderr. A terminal whose name
 * says 256 colours (or direct colour) speaks xterm's sequences (tmux and GNU
 * screen emulate them), so blessed gets its own 256-colour entry.
 */
export function blessedTerminalFor(terminal: string | undefined): string | undefined {
  if (terminal === undefined) return undefined;
  return /-256colou?r$|-direct$|truecolor/i.test(terminal) ? 'xterm-256color' : terminal;
}

/**
 * With fewer than 16 colours, grey (bright black) comes out as colour 0,
 * black, invisible on a dark background: draw it in the default colour.
 */
function foreground(color: Color | undefined, colors: number): Color | undefined {
  return color === 'gray' && colors < 16 ? undefined : color;
}

/** A styled line in blessed's tag markup. */
function toTags(line: StyledLine, colors: number): string {
  let out = '';
  for (const segment of line) {
    let open = '';
    let close = '';
    const fg = foreground(segment.fg, colors);
    if (fg) {
      open += `{${fg}-fg}`;
      close = `{/${fg}-fg}` + close;
    }
    if (segment.bold) {
      open += '{bold}';
      close = '{/bold}' + close;
    }
    if (segment.inverse) {
      open += '{inverse}';
      close = '{/inverse}' + close;
    }
    out += open + escapeTags(segment.text) + close;
  }
  return out;
}

export function createTerminalScreen(options: TerminalScreenOptions): TerminalScreen {
  // blessed loads here, when a screen is really drawn: `--json`, `--no-tui` and `calls` never load it.
  const lib = createRequire(import.meta.url)('blessed') as typeof blessed;
  const screen = lib.screen({
    // @types/blessed has input and output swapped; these are the streams blessed reads and writes.
    input: options.input as unknown as Writable,
    output: options.output as unknown as Readable,
    ...(options.terminal ? { terminal: blessedTerminalFor(options.terminal) } : {}),
    smartCSR: true,
    autoPadding: false,
    warnings: false,
    forceUnicode: options.isUnicode ?? true,
    fullUnicode: false,
    title: 'median-dev',
  });
  const program = screen.program as unknown as {
    tput: { colors: number };
    cols: number;
    rows: number;
    pause(): () => void;
    _twrite(text: string): void;
    flush(): void;
    _flush: () => void;
    _buf: string;
    _owrite: (text: string) => unknown;
    write: (text: string) => unknown;
  };
  // blessed writes what render() drew on the next turn (setImmediate → _flush), outside any caller's try:
  // a write that throws there would be an uncaught error, and take the daemon the TUI runs in with it.
  const failureListeners: Array<(error: unknown) => void> = [];
  const reportFailure = (error: unknown): void => {
    for (const listener of failureListeners) listener(error);
  };
  const flush = program.flush.bind(program);
  program._flush = () => {
    try {
      flush();
    } catch (error) {
      silence();
      reportFailure(error);
    }
  };
  // The same for what comes in: blessed parses keys (and mouse and terminal answers) in listeners on the input's
  // `data` and `keypress`, and redraws in one on the output's `resize`; on a TTY those come from libuv and SIGWINCH,
  // where an error thrown by blessed or by a handler of ours would be uncaught.
  const unguards = [guardEmits(options.input, ['data', 'keypress'], reportFailure), guardEmits(options.output, ['resize'], reportFailure)];
  /** A terminal a write failed on gets nothing more from blessed, not even its tear-down (written late, it wiped what the owner said). */
  const silence = (): void => {
    program._buf = '';
    program._owrite = () => true;
    program.write = () => true;
  };
  const output = options.output as Writable & { columns?: number; rows?: number };
  if (!output.columns && options.width) program.cols = options.width;
  if (!output.rows && options.height) program.rows = options.height;
  if (!output.columns || !output.rows) screen.alloc();

  const colors = program.tput.colors;
  const border = (isFocused: boolean) => ({ fg: isFocused ? 'cyan' : foreground('gray', colors) });
  const boxes = new Map<PanelName, blessed.Widgets.BoxElement>();
  for (const name of PANEL_NAMES) {
    boxes.set(
      name,
      lib.box({ parent: screen, top: 0, left: 0, width: '100%', height: 1, tags: true, wrap: false, border: name === 'list' || name === 'detail' ? { type: 'line' } : undefined, style: { border: border(false) } } as blessed.Widgets.BoxOptions),
    );
  }
  const overlay = lib.box({ parent: screen, top: 'center', left: 'center', width: 10, height: 3, tags: true, wrap: false, hidden: true, border: { type: 'line' }, style: { border: { fg: 'cyan' } } } as blessed.Widgets.BoxOptions);
  let isDestroyed = false;
  /** Set while suspended: gives the terminal back to blessed. */
  let resumeProgram: (() => void) | undefined;

  return {
    get width() {
      return screen.width as number;
    },
    get height() {
      return screen.height as number;
    },
    draw(frame) {
      if (isDestroyed) return;
      const shown = new Set<PanelName>();
      for (const panel of frame.panels) {
        const box = boxes.get(panel.name);
        if (!box) continue;
        shown.add(panel.name);
        box.top = panel.top;
        box.height = panel.height;
        box.show();
        if (panel.hasBorder) {
          box.setLabel(panel.label ?? '');
          box.style.border = border(panel.isFocused);
        }
        box.setContent(panel.lines.map((line) => toTags(line, colors)).join('\n'));
      }
      for (const [name, box] of boxes) if (!shown.has(name)) box.hide();
      if (frame.overlay) {
        overlay.width = frame.overlay.width;
        overlay.height = frame.overlay.height;
        overlay.setLabel(frame.overlay.title);
        overlay.setContent(frame.overlay.lines.map((line) => ` ${toTags(line, colors)} `).join('\n'));
        overlay.show();
        overlay.setFront();
      } else {
        overlay.hide();
      }
      screen.render();
    },
    onKey(listener) {
      screen.on('keypress', (ch: string | undefined, key: RawKey | undefined) => {
        const name = keyName(ch, key);
        if (name !== undefined) listener(name);
      });
    },
    onFailure(listener) {
      failureListeners.push(listener);
    },
    onResize(listener) {
      screen.on('resize', () => listener(screen.width as number, screen.height as number));
    },
    suspend() {
      if (isDestroyed || resumeProgram) return () => undefined;
      const resume = program.pause();
      resumeProgram = resume;
      return () => {
        if (resumeProgram !== resume || isDestroyed) return;
        resumeProgram = undefined;
        resume();
        screen.alloc();
        screen.render();
      };
    },
    writeControl(sequence) {
      if (isDestroyed) return;
      program._twrite(sequence);
      program.flush();
    },
    text() {
      const lines = (screen as unknown as { lines: Cell[][] }).lines;
      return lines.map((row) => row.map((cell) => cell[1]).join(''));
    },
    abandon() {
      silence();
      this.destroy();
    },
    destroy() {
      if (isDestroyed) return;
      isDestroyed = true;
      for (const unguard of unguards) unguard();
      // pause() swapped the output's write for a no-op: put it back before leaving.
      const resume = resumeProgram;
      resumeProgram = undefined;
      resume?.();
      screen.destroy();
    },
  };
}
