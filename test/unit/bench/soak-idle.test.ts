import { describe, expect, it } from 'vitest';
import { parseSoakOptions } from '../../../bench/soak/soak-options.js';
import { checkSoak } from '../../../bench/soak/soak-report.js';
import type { SoakResult } from '../../../bench/soak/soak-run.js';
import type { ProcessStats } from '../../../bench/soak/process-stats.js';

const stats = (rssMiB: number): ProcessStats => ({ atMs: 0, rssMiB, peakRssMiB: rssMiB, openFds: 40, cpuSeconds: 1 });

/** The parts of a run checkSoak reads: start 66 MiB, end (under load) 83, then idle. */
function run(idleRss: number | undefined): SoakResult {
  return {
    options: parseSoakOptions(['--calls', '30000']),
    calls: { answered: 30_000, givenUp: 0, wellFormed: 30_000, recorded: 30_000, lost: 0, uncheckable: 0 },
    drops: [],
    daemon: { start: stats(66), end: stats(83), idle: idleRss === undefined ? undefined : { seconds: 30, rssMiB: [80, idleRss], last: stats(idleRss) }, samples: [] },
  } as unknown as SoakResult;
}

const growthRows = (r: SoakResult) => checkSoak(r).filter((c) => c.what.startsWith('daemon RSS growth, start'));

describe('the soak reads the daemon idle after the last call', () => {
  it('reads 30 s by default, --idle-seconds 0 not at all', () => {
    expect(parseSoakOptions([]).idleSeconds).toBe(30);
    expect(parseSoakOptions(['--idle-seconds', '0']).idleSeconds).toBe(0);
    expect(() => parseSoakOptions(['--idle-seconds', '-1'])).toThrow(/whole number/);
  });

  it('checks idle → idle growth beside start → end', () => {
    const [end, idle] = growthRows(run(70));
    expect(end).toMatchObject({ what: 'daemon RSS growth, start → end', isMet: false });
    expect(idle).toMatchObject({ what: 'daemon RSS growth, start → after 30 s idle (both readings idle)', measured: '+4.0 MiB (4 MB)', isMet: true });
    expect(growthRows(run(77))[1]!.isMet).toBe(false);
    expect(growthRows(run(undefined))).toHaveLength(1);
  });
});
