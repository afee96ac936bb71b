/**
 * `npm run soak` (not part of `npm test`): the soak of issue 6. The real
 * built `median-dev start` takes 100,000 signed calls through the loopback
 * tunnel at a steady rate while its tunnel is dropped every 10,000 calls;
 * every answered call must be in the store, the daemon's memory must not
 * grow (read before the first call, right after the last, and after it sat
 * idle for --idle-seconds), and each drop must heal. Prints the results and rewrites the
 * `## Soak` section of BENCHMARKS.md (full runs only, or with --write).
 *
 *   node dist/bench/soak.js [--calls 100000] [--rate 250] [--drop-every n] [--concurrency 32] [--max-minutes 20] [--idle-seconds 30] [--write|--no-write]
 *
 * Everything is on 127.0.0.1, bounded in count and time (a hard stop after
 * --max-minutes), and every process and temporary folder is removed at the
 * end, also on Ctrl-C.
 */
import { fileURLToPath } from 'node:url';
import { writeSection } from './benchmarks-file.js';
import { USAGE, SoakUsageError, parseSoakOptions, type SoakOptions } from './soak/soak-options.js';
import { SOAK_HEADING, checkSoak, formatSoakReport } from './soak/soak-report.js';
import { runSoak } from './soak/soak-run.js';
import type { SoakWorld } from './soak/soak-world.js';
import { settleMain } from './soak/settle-main.js';

const BENCHMARKS_FILE = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
/** After the hard stop, clean-up gets this long before everything is killed outright. */
const CLEANUP_GRACE_MS = 30_000;

const log = (line: string): void => console.log(line);

let options: Readonly<SoakOptions>;
try {
  options = parseSoakOptions(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof SoakUsageError)) throw error;
  console.error(`${error.message}\n\n${USAGE}`);
  process.exit(2);
}

const stopper = new AbortController();
let world: SoakWorld | undefined;

/** Kills what is left and leaves, without waiting for anything. */
function killEverythingAndExit(why: string): never {
  console.error(`median-dev soak: ${why}; killing what is left.`);
  try {
    world?.killNow();
  } finally {
    process.exit(1);
  }
}

function stopSoon(why: string): void {
  if (stopper.signal.aborted) return;
  console.error(`median-dev soak: ${why}; stopping and cleaning up.`);
  stopper.abort(new Error(why));
  setTimeout(() => killEverythingAndExit(`clean-up took longer than ${CLEANUP_GRACE_MS / 1000} s`), CLEANUP_GRACE_MS).unref();
}

const hardStop = setTimeout(() => stopSoon(`still running after ${options.maxMinutes} minutes (the hard stop)`), options.maxMinutes * 60_000);
hardStop.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => (stopper.signal.aborted ? killEverythingAndExit(`${signal} again`) : stopSoon(signal)));
}

async function main(): Promise<number> {
  log(
    `median-dev soak: ${options.calls.toLocaleString('en-US')} calls at ${options.rate}/s, a tunnel drop every ${options.dropEvery.toLocaleString('en-US')}, ` +
      `≤ ${options.concurrency} in flight, hard stop after ${options.maxMinutes} min`,
  );
  const result = await runSoak(options, { signal: stopper.signal, log, onWorld: (w) => (world = w) });
  const report = formatSoakReport(result);
  log(`\n${SOAK_HEADING}\n\n${report}\n`);
  if (options.write) {
    // writeSection re-reads the file right before it writes: other sections stay as others left them.
    await writeSection(BENCHMARKS_FILE, SOAK_HEADING, report);
    log(`Written to ${BENCHMARKS_FILE} (section "${SOAK_HEADING.slice(3)}").`);
  } else {
    log('BENCHMARKS.md left alone (a run under 100,000 calls; --write to write it anyway).');
  }
  const missed = checkSoak(result).filter((c) => !c.isMet);
  log(missed.length === 0 ? 'Every soak target met.' : `Soak targets missed: ${missed.map((c) => `${c.what} (${c.measured})`).join('; ')}.`);
  return missed.length === 0 ? 0 : 1;
}

settleMain(main(), { hardStop, failed: 'median-dev soak failed' });
