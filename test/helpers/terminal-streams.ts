import type { CliIo } from '../../src/cli/cli-io.js';
import { PassThrough } from 'node:stream';

export interface FakeTty {
  input: PassThrough & { isTTY: true; isRaw: boolean; setRawMode(mode: boolean): void };
  output: PassThrough & { isTTY: true; columns: number; rows: number };
  /** Everything written to the output so far. */
  captured(): string;
  /** The output so far with escape sequences removed. */
  plain(): string;
}

/** Terminal escape sequences: CSI, OSC, charset selection, keypad and save/restore. */
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007|\u001b[()][0-9A-Za-z]|\u001b[=>78]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** A pair of streams that look like a real terminal to blessed. */
export function fakeTty(columns: number, rows: number): FakeTty {
  const input = Object.assign(new PassThrough(), {
    isTTY: true as const,
    isRaw: false,
    setRawMode(mode: boolean) {
      input.isRaw = mode;
    },
  });
  const output = Object.assign(new PassThrough(), { isTTY: true as const, columns, rows });
  let captured = '';
  output.on('data', (chunk: Buffer) => {
    captured += chunk.toString('utf8');
  });
  return { input, output, captured: () => captured, plain: () => stripAnsi(captured) };
}

/** A CLI io whose stdout, stderr and stdin are a fake terminal (for the TUI as `watch` draws it). */
export function ttyIo(tty: FakeTty, cwd: string): CliIo {
  return {
    stdout: tty.output,
    stderr: tty.output,
    stdin: tty.input,
    env: { TERM: 'xterm-256color' },
    cwd,
    isTTY: true,
    isInteractive: true,
    onSignal: () => () => undefined,
    pid: process.pid,
    exit: () => undefined,
  };
}
