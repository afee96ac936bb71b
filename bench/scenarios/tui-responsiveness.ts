/**
 * Scenario 5 (issue 5): the terminal UI with 100,000 records. The real TUI
 * (startTui, blessed) draws into a fake terminal of PassThrough streams that
 * say they are a TTY of `width`×`height`; what it writes is read and counted,
 * as a terminal would. Timed:
 * - opening: from `startTui()` to the first frame that shows the 100,000
 *   records of a snapshot (the TUI's first draw, the snapshot, its draw, and
 *   the frame written out);
 * - scrolling: key presses sent as the terminal sends them (`j`, PageDown,
 *   `G`, `g`), each from the bytes on the input to its frame written out.
 * Redraws are not throttled here (redrawIntervalMs 0), so every press is
 * drawn at once and timed whole.
 */
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import type { DaemonSnapshot } from '../../src/events/index.js';
import { startTui, type Tui } from '../../src/tui/index.js';
import { summarizeLatencies } from '../percentiles.js';
import { sampleCallRecord } from '../sample-record.js';
import { newRunTag } from '../signed-calls.js';

export interface KeyTiming {
  /** What was pressed, as the footer names it. */
  key: string;
  presses: number;
  meanMs: number;
  p50Ms: number;
  maxMs: number;
}

export interface TuiBenchResult {
  records: number;
  /** How many of them the TUI keeps (its window: the newest ones). */
  kept: number;
  width: number;
  height: number;
  /** startTui() until its first (empty) frame is written. */
  startMs: number;
  /** The snapshot dispatched until its frame is written. */
  snapshotMs: number;
  /** startMs + snapshotMs: from start to the first frame with the records. */
  openMs: number;
  keys: KeyTiming[];
  /** Over every press. */
  all: { presses: number; meanMs: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Bytes the TUI wrote, opening and scrolling together. */
  bytesWritten: number;
}

export interface TuiBenchOptions {
  records: number;
  width: number;
  height: number;
  /** Presses of each key. */
  pressesPerKey: number;
}

/** What a terminal sends for each key. */
const KEY_BYTES: Record<string, string> = { j: 'j', pagedown: '\u001b[6~', G: 'G', g: 'g' };
/** No single step may take this long (a hang, not a slow frame). */
const STEP_TIMEOUT_MS = 30_000;

function fakeTerminal(width: number, height: number) {
  const input = Object.assign(new PassThrough(), {
    isTTY: true as const,
    isRaw: false,
    setRawMode(mode: boolean) {
      input.isRaw = mode;
      return input;
    },
  });
  const output = Object.assign(new PassThrough(), { isTTY: true as const, columns: width, rows: height });
  let bytes = 0;
  let writes = 0;
  output.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    writes += 1;
  });
  return { input, output, bytes: () => bytes, writes: () => writes };
}

function snapshotOf(count: number): DaemonSnapshot {
  const tag = newRunTag();
  const now = Date.now();
  // Oldest first, one second apart, like a long session.
  const records = Array.from({ length: count }, (_, i) => sampleCallRecord(tag, i, now - (count - i) * 1_000));
  return {
    version: '0.1.0',
    proxyUrl: 'http://127.0.0.1:4141',
    tunnel: { state: 'open', url: 'https://calm-otter.loca.lt' },
    toolsUrl: 'https://calm-otter.loca.lt/api/median',
    endpoint: { id: 'ep_bench', url: 'https://calm-otter.loca.lt/api/median', status: 'synced', error: null },
    child: { state: 'running', pid: 4242, command: 'npm run dev' },
    keyFingerprint: '…CDEF',
    isDemo: false,
    callCount: count,
    records,
  };
}

/** Resolves once `isDone()` holds, checking after each turn of the event loop. */
async function until(isDone: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + STEP_TIMEOUT_MS;
  while (!isDone()) {
    if (performance.now() > deadline) throw new Error(`TUI bench: ${what} did not happen within ${STEP_TIMEOUT_MS} ms.`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export async function runTuiResponsiveness(options: TuiBenchOptions): Promise<TuiBenchResult> {
  const snapshot = snapshotOf(options.records);
  const term = fakeTerminal(options.width, options.height);
  let tui: Tui | undefined;
  try {
    // blessed writes a frame on the next tick after drawing: wait for bytes past what was there.
    const written = (since: number) => until(() => term.writes() > since, 'a frame written');

    let mark = term.writes();
    const t0 = performance.now();
    tui = startTui({
      input: term.input,
      output: term.output,
      terminal: 'xterm-256color',
      redrawIntervalMs: 0,
      onEffect: () => {
        // Replays and the like are not part of this measurement.
      },
    });
    await written(mark);
    const t1 = performance.now();
    mark = term.writes();
    tui.dispatch({ type: 'snapshot', snapshot });
    await written(mark);
    const t2 = performance.now();
    const shown = tui.state;
    if (shown.records.length !== options.records) {
      throw new Error(`TUI bench: the TUI holds ${shown.records.length} records, not ${options.records}.`);
    }

    // j and PageDown walk down from the newest; then G and g alternate
    // between the ends: every press moves the selection, so each draws.
    const sequence = [
      ...Array<string>(options.pressesPerKey).fill('j'),
      ...Array<string>(options.pressesPerKey).fill('pagedown'),
      ...Array.from({ length: options.pressesPerKey * 2 }, (_, i) => (i % 2 === 0 ? 'G' : 'g')),
    ];
    const timings = new Map<string, number[]>();
    for (const key of sequence) {
      const before = tui.state;
      const since = term.writes();
      const started = performance.now();
      term.input.write(KEY_BYTES[key]!);
      const current = tui;
      await until(() => current.state !== before, `the ${key} press`);
      await written(since);
      const ms = performance.now() - started;
      const list = timings.get(key) ?? [];
      list.push(ms);
      timings.set(key, list);
    }

    const keys: KeyTiming[] = [...timings.entries()].map(([key, list]) => {
      const summary = summarizeLatencies(Float64Array.from(list));
      return { key, presses: list.length, meanMs: summary.mean, p50Ms: summary.p50, maxMs: summary.max };
    });
    const every = [...timings.values()].flat();
    const overall = summarizeLatencies(Float64Array.from(every));
    return {
      records: options.records,
      kept: shown.records.size,
      width: options.width,
      height: options.height,
      startMs: t1 - t0,
      snapshotMs: t2 - t1,
      openMs: t2 - t0,
      keys,
      all: { presses: every.length, meanMs: overall.mean, p50Ms: overall.p50, p99Ms: overall.p99, maxMs: overall.max },
      bytesWritten: term.bytes(),
    };
  } finally {
    tui?.close();
    term.input.end();
    term.output.end();
    // Let blessed's last writes and the streams' end events pass before the next scenario.
    await Promise.race([once(term.output, 'end'), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
  }
}
