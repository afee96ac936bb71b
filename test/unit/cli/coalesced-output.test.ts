import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { coalesceOutput } from '../../../src/cli/coalesced-output.js';
import { eventLinePrinter } from '../../../src/cli/foreground-daemon.js';
import type { CliIo } from '../../../src/cli/cli-io.js';

/** stdout and stderr as real Writables that log every write they get, in the order they get them. */
function loggingIo() {
  const writes: string[] = [];
  const exits: Array<{ code: number; writesThen: number }> = [];
  const crashHandlers = new Set<() => void>();
  const stream = (name: string) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        writes.push(`${name}:${chunk.toString('utf8')}`);
        done();
      },
    });
  const io: CliIo = {
    stdout: stream('out'),
    stderr: stream('err'),
    get stdin(): never {
      throw new Error('stdin is not read here');
    },
    env: {},
    cwd: process.cwd(),
    isTTY: false,
    isInteractive: false,
    onSignal: () => () => undefined,
    onCrash(handler) {
      crashHandlers.add(handler);
      return () => crashHandlers.delete(handler);
    },
    pid: process.pid,
    exit: (code) => void exits.push({ code, writesThen: writes.length }),
  };
  return { io, writes, exits, crash: () => [...crashHandlers].forEach((handler) => handler()), crashHandlers };
}

describe('coalesced output (the daemon’s event lines)', () => {
  it('writes at once when quiet, and the lines that follow within the window in one write, in order', async () => {
    const { io, writes } = loggingIo();
    const lines = coalesceOutput(io, { windowMs: 40 });
    lines.io.stdout.write('{"event":"call","n":1}\n');
    expect(writes).toEqual(['out:{"event":"call","n":1}\n']);
    lines.io.stdout.write('{"event":"call","n":2}\n');
    lines.io.stdout.write(Buffer.from('{"event":"call","n":3}\n'));
    lines.io.stdout.write('{"event":"call","n":4}\n');
    expect(writes).toHaveLength(1);
    await vi.waitFor(() => expect(writes).toHaveLength(2), { timeout: 2000 });
    expect(writes[1]).toBe('out:{"event":"call","n":2}\n{"event":"call","n":3}\n{"event":"call","n":4}\n');
    lines.close();
  });

  it('keeps the order across stdout and stderr: a write to one sends what waits for the other first', () => {
    const { io, writes } = loggingIo();
    const lines = coalesceOutput(io, { windowMs: 60_000 });
    lines.io.stdout.write('a\n');
    lines.io.stdout.write('b\n');
    lines.io.stderr.write('[dev] c\n');
    lines.io.stdout.write('d\n');
    lines.flush();
    expect(writes).toEqual(['out:a\n', 'out:b\n', 'err:[dev] c\n', 'out:d\n']);
    lines.close();
  });

  it('loses nothing on exit, on a crash, or when closed; after close every write goes straight out', () => {
    const { io, writes, exits, crash, crashHandlers } = loggingIo();
    const lines = coalesceOutput(io, { windowMs: 60_000 });
    lines.io.stdout.write('first\n');
    lines.io.stdout.write('before exit\n');
    lines.io.exit(130);
    expect(exits).toEqual([{ code: 130, writesThen: 2 }]);
    expect(writes).toEqual(['out:first\n', 'out:before exit\n']);

    lines.io.stdout.write('before the crash\n');
    crash();
    expect(writes.at(-1)).toBe('out:before the crash\n');

    lines.io.stdout.write('before close\n');
    lines.close();
    expect(writes.at(-1)).toBe('out:before close\n');
    expect(crashHandlers.size).toBe(0);
    lines.io.stdout.write('x\n');
    lines.io.stdout.write('y\n');
    expect(writes.slice(-2)).toEqual(['out:x\n', 'out:y\n']);
  });

  it('a write with a callback goes out at once, after what waits, and is called back', async () => {
    const { io, writes } = loggingIo();
    const lines = coalesceOutput(io, { windowMs: 60_000 });
    lines.io.stdout.write('a\n');
    lines.io.stdout.write('b\n');
    await new Promise<void>((resolve) => lines.io.stdout.write('c\n', () => resolve()));
    expect(writes).toEqual(['out:a\n', 'out:b\n', 'out:c\n']);
    lines.close();
  });

  it('writes what gathered once it reaches maxBytes, window or not', () => {
    const { io, writes } = loggingIo();
    const lines = coalesceOutput(io, { windowMs: 60_000, maxBytes: 10 });
    lines.io.stdout.write('start\n');
    lines.io.stdout.write('12345\n');
    expect(writes).toHaveLength(1);
    lines.io.stdout.write('67890\n');
    expect(writes).toEqual(['out:start\n', 'out:12345\n67890\n']);
    lines.close();
  });
});

describe('the --json printer on coalesced output', () => {
  const config = { dataDir: '/nowhere/.median-dev', envFile: null, target: 'http://127.0.0.1:3000', route: '/api/median', medianKey: undefined, toolSecret: undefined };
  const at = '2026-12-02T00:00:00.000Z';
  const call = (n: number) =>
    ({ event: 'call', at, id: `rec_${n}`, toolCallId: `call_${n}`, tool: 'orderStatus', kind: 'tool-call', status: 200, signature: 'valid', verdict: 'answered', durationMs: 1, replayOf: null }) as const;

  it('a call line waits with the others; any other event goes out at once, after them', () => {
    const { io, writes } = loggingIo();
    const lines = coalesceOutput(io, { windowMs: 60_000 });
    const print = eventLinePrinter(lines.io, { json: true, config, flush: lines.flush });
    print(call(1));
    print(call(2));
    print(call(3));
    expect(writes).toHaveLength(1);
    print({ event: 'tunnel', at, state: 'down', reason: 'gone' } as never);
    expect(writes).toHaveLength(2);
    const printed = writes.join('').replaceAll('out:', '').trim().split('\n').map((line) => JSON.parse(line) as { event: string; id?: string });
    expect(printed.map((event) => event.id ?? event.event)).toEqual(['rec_1', 'rec_2', 'rec_3', 'tunnel']);
    lines.close();
  });
});
