/**
 * `npm run bench:inspector`: scenario 7 of `npm run bench` alone (the browser
 * inspector over a store of 100,000 records, made as scenario 2 makes it),
 * for working on the page without the other scenarios' minutes. Prints the
 * numbers; BENCHMARKS.md is left to the full run.
 *
 *   node dist/bench/inspector.js [--records N] [--steps N]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInspectorPaint } from './scenarios/inspector-paint.js';
import { runRecorderAppends } from './scenarios/recorder-appends.js';

function numberArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at === -1 ? Number.NaN : Number(process.argv[at + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const records = numberArg('--records', 100_000);
const steps = numberArg('--steps', 200);
const root = await mkdtemp(join(tmpdir(), 'median-dev-bench-inspector-'));
try {
  const store = await runRecorderAppends({ dataDir: join(root, 'store'), count: records, inFlight: 64 });
  console.log(`store: ${store.storeRecords} records`);
  const r = await runInspectorPaint({ dataDir: join(root, 'store'), wheelSteps: steps, pageSteps: Math.max(1, Math.round(steps / 4)) });
  if (r.skipped) {
    console.log(`skipped: ${r.skipped}`);
  } else {
    const line = (name: string, s: typeof r.wheel) => `${name}: p50 ${s.p50Ms.toFixed(2)} ms, p99 ${s.p99Ms.toFixed(2)} ms, max ${s.maxMs.toFixed(2)} ms over ${s.steps}`;
    console.log(`index built in ${Math.round(r.indexMs)} ms; first rows ${Math.round(r.firstRowsMs)} ms (first-contentful-paint ${Math.round(r.firstContentfulPaintMs ?? Number.NaN)} ms)`);
    console.log(line('wheel step, work', r.wheel));
    console.log(line('page step, work', r.page));
    console.log(line('wheel step, event to frame laid out', r.wheelLatency));
    console.log(`jump to the middle: ${Math.round(r.jumpMs)} ms`);
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
