/**
 * The flags of `npm run soak` (node dist/bench/soak.js), parsed once into a
 * frozen object. Unknown flags and bad numbers are usage errors.
 */

export interface SoakOptions {
  /** Logical calls to deliver (each eventually answered once). */
  calls: number;
  /** Fresh calls started per second (retries come on top). */
  rate: number;
  /** A tunnel drop before call k·dropEvery (k ≥ 1, while < calls). */
  dropEvery: number;
  /** Requests in flight at most (fresh and retries together). */
  concurrency: number;
  /** The whole run is abandoned (and everything stopped) after this. */
  maxMinutes: number;
  /** After the last call: seconds the daemon is left idle, its RSS read every second, before it is stopped (0: none). */
  idleSeconds: number;
  /** Rewrite the `## Soak` section of BENCHMARKS.md (default: only for a run of ≥ 100,000 calls). */
  write: boolean;
}

export const USAGE = `Usage: node dist/bench/soak.js [--calls <n>] [--rate <calls/s>] [--drop-every <n>] [--concurrency <n>] [--max-minutes <n>] [--idle-seconds <n>] [--write | --no-write]

  --calls        logical calls to deliver (default 100000)
  --rate         fresh calls per second (default 250)
  --drop-every   a tunnel drop every n calls (default calls/10)
  --concurrency  requests in flight at most (default 32)
  --max-minutes  hard stop (default 20)
  --idle-seconds after the last call, the daemon's RSS is read every second for this long, idle (default 30; 0: not)
  --write        write the "## Soak" section of BENCHMARKS.md (default: only when --calls >= 100000)`;

export class SoakUsageError extends Error {}

function positiveInt(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < 1) throw new SoakUsageError(`${flag} needs a whole number ≥ 1, not ${value === undefined ? 'nothing' : JSON.stringify(value)}.`);
  return n;
}

function nonNegativeInt(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < 0) throw new SoakUsageError(`${flag} needs a whole number ≥ 0, not ${value === undefined ? 'nothing' : JSON.stringify(value)}.`);
  return n;
}

export function parseSoakOptions(argv: readonly string[]): Readonly<SoakOptions> {
  const values: Partial<SoakOptions> = {};
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const next = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--calls':
        values.calls = positiveInt(flag, next());
        break;
      case '--rate':
        values.rate = positiveInt(flag, next());
        break;
      case '--drop-every':
        values.dropEvery = positiveInt(flag, next());
        break;
      case '--concurrency':
        values.concurrency = positiveInt(flag, next());
        break;
      case '--max-minutes':
        values.maxMinutes = positiveInt(flag, next());
        break;
      case '--idle-seconds':
        values.idleSeconds = nonNegativeInt(flag, next());
        break;
      case '--write':
        values.write = true;
        break;
      case '--no-write':
        values.write = false;
        break;
      default:
        throw new SoakUsageError(`Unknown argument ${JSON.stringify(arg)}.`);
    }
  }
  const calls = values.calls ?? 100_000;
  return Object.freeze({
    calls,
    rate: values.rate ?? 250,
    dropEvery: values.dropEvery ?? Math.max(1, Math.floor(calls / 10)),
    concurrency: values.concurrency ?? 32,
    maxMinutes: values.maxMinutes ?? 20,
    idleSeconds: values.idleSeconds ?? 30,
    write: values.write ?? calls >= 100_000,
  });
}
