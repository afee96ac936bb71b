/**
 * Scenario 2: `count` realistic records appended to a real recorder (masking
 * on, as in the daemon) with at most `inFlight` appends outstanding; each
 * append resolves once its record is written to the OS, the recorder's
 * default durability (src/recorder/recorder.ts, background-sync.ts).
 */
import { performance } from 'node:perf_hooks';
import { openRecorder } from '../../src/recorder/index.js';
import { sampleCallRecord } from '../sample-record.js';
import { BENCH_MEDIAN_KEY, newRunTag } from '../signed-calls.js';

export interface RecorderAppendsResult {
  records: number;
  inFlight: number;
  durationMs: number;
  appendsPerSecond: number;
  /** What the store holds afterwards. */
  storeRecords: number;
  storeBytes: number;
  cpuUsPerRecord: number;
}

export async function runRecorderAppends(options: { dataDir: string; count: number; inFlight: number }): Promise<RecorderAppendsResult> {
  // Retention raised to the count so the store keeps all of them for scenario 3
  // (the default keeps the newest 50,000); rotation and retention still run.
  const recorder = await openRecorder({ dataDir: options.dataDir, secrets: [BENCH_MEDIAN_KEY], maxRecords: options.count });
  try {
    const tag = newRunTag();
    let next = 0;
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const worker = async (): Promise<void> => {
      while (next < options.count) {
        const index = next++;
        await recorder.append(sampleCallRecord(tag, index));
      }
    };
    await Promise.all(Array.from({ length: options.inFlight }, worker));
    const durationMs = performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    const stats = recorder.stats();
    return {
      records: options.count,
      inFlight: options.inFlight,
      durationMs,
      appendsPerSecond: (options.count / durationMs) * 1000,
      storeRecords: stats.records,
      storeBytes: stats.bytes,
      cpuUsPerRecord: (cpu.user + cpu.system) / options.count,
    };
  } finally {
    await recorder.close();
  }
}
