/**
 * Scenario 4: the real daemon (`median-dev start --tunnel none --json`) in
 * front of the bench target takes `calls` signed calls; its resident memory
 * is read before, along the way and after, then it is stopped with SIGINT.
 * The Median API is pointed at a closed port on 127.0.0.1, so the daemon's
 * one attempt to reach it fails at once and nothing leaves the machine.
 */
import { createServer } from 'node:net';
import { runLoad } from '../load-generator.js';
import { summarizeLatencies } from '../percentiles.js';
import { readProcessMemory, type ProcessMemory } from '../process-memory.js';
import { startDaemonProcess } from '../daemon-process.js';
import { benchChildEnv } from '../child-env.js';
import { BENCH_MEDIAN_KEY, benchSecret, newRunTag, signedToolCall } from '../signed-calls.js';
import { CLI_ENTRY } from './calls-command.js';

export interface DaemonRssResult {
  calls: number;
  /** `call` events the daemon printed, and how many said `valid`. */
  callEvents: number;
  validSignatures: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  atStart: ProcessMemory;
  /** RSS after every quarter of the calls. */
  along: { answered: number; rssMiB: number }[];
  after: ProcessMemory;
  stop: { code: number | null; signal: string | null; stopMs: number; killed: boolean };
  /** The daemon's events up to the RSS reading at start (`event:state:code`). */
  startupEvents: string[];
}

/** A port nothing listens on (taken from the OS, then released). */
async function closedLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export async function runDaemonRss(options: { targetUrl: string; cwd: string; dataDir: string; calls: number; concurrency: number; log(line: string): void }): Promise<DaemonRssResult> {
  const apiPort = await closedLoopbackPort();
  const daemon = await startDaemonProcess({
    cliEntry: CLI_ENTRY,
    args: [
      'start',
      '--tunnel', 'none',
      '--no-tui',
      '--json',
      '--port', '0',
      '--no-env-file',
      '--data-dir', options.dataDir,
      '--target', options.targetUrl,
      '--median-api', `http://127.0.0.1:${apiPort}`,
    ],
    cwd: options.cwd,
    env: benchChildEnv({ MEDIAN_KEY: BENCH_MEDIAN_KEY }),
    startTimeoutMs: 20_000,
  });
  try {
    if (!daemon.proxyUrl.startsWith('http://127.0.0.1:')) throw new Error(`The daemon's proxy is at ${daemon.proxyUrl}, not on 127.0.0.1.`);
    // Start-up is over once its one try at the (closed) Median API came back.
    await daemon.waitForEvent((e) => e.event === 'error' || e.event === 'endpoint', 15_000);
    const atStart = await readProcessMemory(daemon.pid);
    const startupEvents = daemon
      .otherEvents()
      .map((e) => `${e.event}${typeof e.state === 'string' ? `:${e.state}` : ''}${typeof e.code === 'string' ? `:${e.code}` : ''}`);
    options.log(`  daemon pid ${daemon.pid} at ${daemon.proxyUrl}, RSS at start ${atStart.rssMiB.toFixed(1)} MiB`);

    const secret = benchSecret();
    const tag = newRunTag();
    const along: DaemonRssResult['along'] = [];
    const quarter = Math.max(1, Math.floor(options.calls / 4));
    const sampling: Promise<void>[] = [];
    const result = await runLoad({
      origin: daemon.proxyUrl,
      requests: options.calls,
      warmup: 0,
      concurrency: options.concurrency,
      // Signed as sent: the run is long enough for fresh timestamps to matter.
      requestAt: (i) => signedToolCall(secret, tag, i),
      deadlineMs: 240_000,
      onAnswered(answered) {
        if (answered % quarter !== 0) return;
        sampling.push(
          readProcessMemory(daemon.pid).then((m) => {
            along.push({ answered, rssMiB: m.rssMiB });
            options.log(`  ${answered} calls answered, daemon RSS ${m.rssMiB.toFixed(1)} MiB`);
          }),
        );
      },
    });
    await Promise.all(sampling);
    if (result.failed > 0) throw new Error(`${result.failed} of ${result.requests} calls through the daemon failed (${result.firstError}).`);
    await daemon.waitForCalls(options.calls, 60_000);
    const after = await readProcessMemory(daemon.pid);
    const stop = await daemon.stop();
    const latency = summarizeLatencies(result.latenciesMs);
    const { total, valid } = daemon.calls();
    return {
      calls: options.calls,
      callEvents: total,
      validSignatures: valid,
      requestsPerSecond: result.requestsPerSecond,
      p50: latency.p50,
      p99: latency.p99,
      atStart,
      along: along.sort((a, b) => a.answered - b.answered),
      after,
      stop,
      startupEvents,
    };
  } finally {
    await daemon.stop();
  }
}
