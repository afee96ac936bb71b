import type { Readable, Writable } from 'node:stream';
import type { CallRecord } from '../median/call-record.js';
import { editableInputOf } from './format-detail.js';
import { renderFrame, type Frame } from './render-frame.js';
import { seg } from './styled-text.js';
import { createTerminalScreen, type TerminalScreen } from './screen.js';
import { osc52, restoreTerminal } from './terminal-restore.js';
import type { TuiAction, TuiEffect } from './tui-actions.js';
import { initialState, type PastableCommand, type TuiState } from './tui-state.js';
import { reduce } from './view-model.js';
import type { RecordWindow } from './record-list.js';

export interface TuiOptions {
  /** A real TTY, or PassThrough streams (with columns/rows/isTTY set) in tests. */
  input: Readable;
  output: Writable;
  /** Size when the output does not report one. */
  width?: number;
  height?: number;
  isDemo?: boolean;
  /** Shown in the footer first and at the end of the `?` overlay. */
  helpNote?: string;
  /** How commands the TUI prints are pasted into another terminal (default: `median-dev`, default data dir and env file). */
  pastable?: PastableCommand;
  /** Terminal type, e.g. from TERM; left out, blessed picks. */
  terminal?: string;
  /** Draw ✓ ✗ ↻ as they are (default true). */
  isUnicode?: boolean;
  /**
   * Effects the TUI cannot carry out itself: `send`, `quit`, `export-har`, `save-call`.
   * (`copy`, `copy-curl` and `edit-input` are handled here.) A rejection is
   * shown as an error in the footer.
   */
  onEffect(effect: TuiEffect): void | Promise<void>;
  /** Opens a text in the user's editor ($EDITOR, chosen by the caller); undefined = cancelled. */
  editor?: { open(text: string): Promise<string | undefined> };
  /** A better curl for `c` (e.g. re-signed with a fresh timestamp); default: the recorded request. */
  curlOf?(record: CallRecord): string | Promise<string>;
  /**
   * The screen itself failed: even the one-line frame saying a frame could not
   * be built could not be drawn (the terminal, or blessed, is broken). The TUI
   * has stopped drawing and taking keys; its owner says so and carries on
   * without it (the daemon outlives its TUI). Default: nothing more is drawn.
   */
  onFailed?(error: unknown): void;
  /** The newest records the list keeps (default DEFAULT_RECORD_WINDOW; tests use a small one). */
  recordWindow?: RecordWindow;
  /** At most one redraw per this many ms (default 50). */
  redrawIntervalMs?: number;
  now?: () => number;
}

export interface Tui {
  dispatch(action: TuiAction): void;
  /** The current view model state. */
  readonly state: TuiState;
  /** The characters on screen, one string a row, after drawing anything pending. */
  screenText(): string[];
  /**
   * For crash handlers: synchronously closes the TUI, falling back to the raw
   * restore sequence if the screen cannot be torn down properly.
   */
  restoreTerminal(): void;
  /** Idempotent: restores the terminal (normal screen, cursor, input mode), removes listeners, stops the redraw timer. */
  close(): void;
}

export function startTui(options: TuiOptions): Tui {
  const now = options.now ?? (() => performance.now());
  const interval = options.redrawIntervalMs ?? 50;
  const screen: TerminalScreen = createTerminalScreen({
    input: options.input,
    output: options.output,
    ...(options.width !== undefined ? { width: options.width } : {}),
    ...(options.height !== undefined ? { height: options.height } : {}),
    ...(options.terminal !== undefined ? { terminal: options.terminal } : {}),
    ...(options.isUnicode !== undefined ? { isUnicode: options.isUnicode } : {}),
  });
  let state = initialState({ isDemo: options.isDemo ?? false, helpNote: options.helpNote, pastable: options.pastable, recordWindow: options.recordWindow, width: screen.width, height: screen.height });
  let isClosed = false;
  let isSuspended = false;
  let isDirty = true;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;

  const drawNow = (): void => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (isClosed || isSuspended || !isDirty) return;
    isDirty = false;
    lastDraw = now();
    // A view crash boundary: a frame that cannot be built (a bug, data no view expected) is said on screen;
    // the TUI, and the daemon it runs in, keep going.
    try {
      screen.draw(renderFrame(state));
    } catch (error) {
      try {
        screen.draw(failedFrame(state, error));
      } catch (screenError) {
        fail(screenError);
      }
    }
  };

  /** The screen cannot draw at all: stop, hand the terminal back as far as it can be, tell the owner. */
  const fail = (error: unknown): void => {
    if (isClosed) return;
    isClosed = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
    try {
      screen.abandon();
    } catch {
      // blessed could not tear down either: the owner restores the terminal (restoreTerminal) as it tells the user.
    }
    options.onFailed?.(error);
  };

  const requestDraw = (): void => {
    isDirty = true;
    if (isClosed || isSuspended || timer) return;
    const wait = lastDraw + interval - now();
    if (wait <= 0) {
      drawNow();
      return;
    }
    timer = setTimeout(drawNow, wait);
    timer.unref();
  };

  const flashError = (prefix: string, error: unknown): void => {
    dispatch({ type: 'flash', level: 'error', text: `${prefix}: ${error instanceof Error ? error.message : String(error)}` });
  };

  const copy = (text: string): void => {
    screen.writeControl(osc52(text));
  };

  const editInput = async (record: CallRecord): Promise<void> => {
    const text = editableInputOf(record);
    if (text === undefined) return;
    if (!options.editor) {
      dispatch({ type: 'flash', level: 'warn', text: 'No editor is set: set $VISUAL or $EDITOR to edit an input.' });
      return;
    }
    isSuspended = true;
    const resume = screen.suspend();
    let edited: string | undefined;
    try {
      edited = await options.editor.open(text);
    } finally {
      isSuspended = false;
      resume();
      requestDraw();
    }
    dispatch({ type: 'input-edited', record, text: edited });
  };

  const run = async (effect: TuiEffect): Promise<void> => {
    switch (effect.type) {
      case 'copy':
        copy(effect.text);
        dispatch({ type: 'flash', text: 'Copied to the clipboard.' });
        return;
      case 'copy-curl': {
        const text = options.curlOf ? await options.curlOf(effect.record) : effect.text;
        copy(text);
        dispatch({ type: 'show-text', title: 'curl (copied to the clipboard if your terminal allows OSC 52)', text });
        return;
      }
      case 'edit-input':
        return editInput(effect.record);
      case 'send':
      case 'quit':
      case 'export-har':
      case 'save-call':
        return options.onEffect(effect);
      default: {
        const never: never = effect;
        return never;
      }
    }
  };

  function dispatch(action: TuiAction): void {
    if (isClosed) return;
    let result: ReturnType<typeof reduce>;
    try {
      result = reduce(state, action);
    } catch (error) {
      // The same boundary for the view model: this action is dropped, said on screen, the TUI goes on.
      if (action.type === 'flash') return;
      dispatch({ type: 'flash', level: 'error', text: `The screen could not take that in (${error instanceof Error ? error.message : String(error)}); the daemon keeps running.` });
      return;
    }
    if (result.state !== state) {
      state = result.state;
      requestDraw();
    }
    for (const effect of result.effects) {
      try {
        run(effect).catch((error: unknown) => flashError(effect.type, error));
      } catch (error) {
        flashError(effect.type, error);
      }
    }
  }

  screen.onKey((key) => dispatch({ type: 'key', key }));
  screen.onResize((width, height) => dispatch({ type: 'resize', width, height }));
  screen.onFailure((error) => fail(error));
  drawNow();

  function close(): void {
    if (isClosed) return;
    isClosed = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
    screen.destroy();
  }

  return {
    dispatch,
    get state() {
      return state;
    },
    screenText() {
      drawNow();
      return screen.text();
    },
    restoreTerminal() {
      try {
        close();
      } catch {
        // blessed could not tear down (a crash inside it): write the restore sequence ourselves.
        restoreTerminal({ input: options.input, output: options.output });
      }
    },
    close,
  };
}

/** What is drawn when the real frame could not be built: one line saying so; q still quits. */
function failedFrame(state: TuiState, error: unknown): Frame {
  const message = error instanceof Error ? error.message : String(error);
  const text = `median-dev: the screen could not be drawn (${message.slice(0, 200)}). The daemon keeps running; q quits, \`median-dev calls\` lists the calls.`;
  return { width: state.width, height: state.height, panels: [{ name: 'list', top: 0, height: state.height, hasBorder: false, isFocused: true, lines: [[seg(text, 'red')]] }], overlay: null };
}
