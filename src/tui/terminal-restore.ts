import type { Readable, Writable } from 'node:stream';

/**
 * What puts a terminal back after a full-screen program, whatever state it
 * was left in: attributes reset, mouse reporting off, normal keypad, cursor
 * shown, normal screen buffer.
 */
export const TERMINAL_RESTORE_SEQUENCE =
  '\u001b[0m' + '\u001b[?1000l\u001b[?1002l\u001b[?1003l\u001b[?1006l' + '\u001b[?1l\u001b>' + '\u001b[?25h' + '\u001b[?1049l';

/**
 * Restores a terminal synchronously without the TUI's help (for a crash
 * handler that has nothing else left): raw mode off, the restore sequence out.
 */
export function restoreTerminal(streams: { input?: Readable; output: Writable }): void {
  const input = streams.input as (Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }) | undefined;
  try {
    if (input?.isTTY && typeof input.setRawMode === 'function') input.setRawMode(false);
  } catch {
    // The input is already closed: nothing to restore on that side.
  }
  if (streams.output.writable) streams.output.write(TERMINAL_RESTORE_SEQUENCE);
}

/** OSC 52: asks the terminal to put `text` on the system clipboard. */
export function osc52(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}
