/**
 * `npm run bench:inspector`: scenario 7 of `npm run bench` alone (the browser
 * inspector over a store of 100,000 records, made as scenario 2 makes it),
 * for working on the page without the other scenarios' minutes. Prints the
 * numbers; BENCHMARKS.md is left to the full run.
 *
 *   node dist/bench/inspector.js [--records N] [--steps N] [--trace FILE]
 *
 * --trace FILE  a Chrome trace of the wheel steps (open it in DevTools' Performance panel), and a summary of
 *               where the page's main thread spent the time
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { traceWhile, type TraceSummary } from './chromium-trace.js';
import { runInspectorPaint } from './scenarios/inspector-paint.js';
import { runRecorderAppends } from './scenarios/recorder-appends.js';
import { exitUnlessBenchArgsRun, type BenchFlags } from './bench-args.js';

const FLAGS: BenchFlags = { usage: 'node dist/bench/inspector.js [--records N] [--steps N] [--trace FILE]', switches: [], values: ['--records', '--steps', '--trace'] };
exitUnlessBenchArgsRun(process.argv.slice(2), FLAGS);

function numberArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at === -1 ? Number.NaN : Number(process.argv[at + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const records = numberArg('--records', 100_000);
const steps = numberArg('--steps', 200);
const traceAt = process.argv.indexOf('--trace');
const traceFile = traceAt === -1 ? undefined : process.argv[traceAt + 1];
let trace: TraceSummary | undefined;
const root = await mkdtemp(join(tmpdir(), 'median-dev-bench-inspector-'));
try {
  const store = await runRecorderAppends({ dataDir: join(root, 'store'), count: records, inFlight: 64 });
  console.log(`store: ${store.storeRecords} records`);
  const r = await runInspectorPaint({
    dataDir: join(root, 'store'),
    wheelSteps: steps,
    pageSteps: Math.max(1, Math.round(steps / 4)),
    ...(traceFile ? { aroundWheelSteps: async (page, work) => void (trace = await traceWhile(page, traceFile, work)) } : {}),
  });
  if (r.skipped) {
    console.log(`skipped: ${r.skipped}`);
  } else {
    const line = (name: string, s: typeof r.wheel) => `${name}: p50 ${s.p50Ms.toFixed(2)} ms, p99 ${s.p99Ms.toFixed(2)} ms, max ${s.maxMs.toFixed(2)} ms over ${s.steps}`;
    console.log(`index built in ${Math.round(r.indexMs)} ms; first rows ${Math.round(r.firstRowsMs)} ms (first-contentful-paint ${Math.round(r.firstContentfulPaintMs ?? Number.NaN)} ms)`);
    console.log(line('wheel step, work', r.wheel));
    console.log(line('page step, work', r.page));
    console.log(line('wheel step, event to frame laid out', r.wheelLatency));
    console.log(`jump to the middle: ${Math.round(r.jumpMs)} ms`);
    if (trace) {
      console.log(`\ntrace of the wheel steps: ${traceFile}; the page's main thread by event (ms, count):`);
      for (const { name, ms, count } of trace.byName) console.log(`  ${name.padEnd(40)} ${ms.toFixed(1).padStart(8)} ${String(count).padStart(6)}`);
      console.log(`longest tasks: ${trace.longestTasksMs.map((ms) => ms.toFixed(1)).join(', ')} ms`);
      const { count, wall, cpu } = trace.frames;
      const show = (s: typeof wall) => `p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, max ${s.max.toFixed(2)} ms`;
      console.log(`main-thread frames (${count}): wall ${show(wall)}; thread CPU ${show(cpu)}`);
    }
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
