/**
 * The flags a bench takes, checked before it runs: `--help` prints its usage
 * and stops, and a flag it does not know stops it with its usage. Without
 * this, `node dist/bench/tunnel.js --help` (or a typo such as `--no-wirte`)
 * started the whole 20-minute run and rewrote BENCHMARKS.md.
 */
export interface BenchFlags {
  /** The usage line(s) printed for `--help` and after a bad flag. */
  usage: string;
  /** Flags that stand alone (`--quick`). */
  switches?: readonly string[];
  /** Flags followed by a value (`--rounds 3`). */
  values?: readonly string[];
}

export type BenchArgsCheck = { kind: 'run' } | { kind: 'help' } | { kind: 'bad'; message: string };

/** What `argv` (without node and the script) asks for. Pure: the bench's entry acts on it. */
export function checkBenchArgs(argv: readonly string[], flags: BenchFlags): BenchArgsCheck {
  const switches = new Set(flags.switches ?? []);
  const values = new Set(flags.values ?? []);
  for (let at = 0; at < argv.length; at += 1) {
    const arg = argv[at] ?? '';
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    if (switches.has(arg)) continue;
    if (values.has(arg)) {
      const value = argv[at + 1];
      if (value === undefined || value.startsWith('--')) return { kind: 'bad', message: `${arg} needs a value.` };
      at += 1;
      continue;
    }
    return { kind: 'bad', message: `Unknown argument: ${arg}` };
  }
  return { kind: 'run' };
}

/** For a bench's entry: prints the usage and ends the process on `--help` (0) or a bad flag (2); returns when it may run. */
export function exitUnlessBenchArgsRun(argv: readonly string[], flags: BenchFlags): void {
  const check = checkBenchArgs(argv, flags);
  if (check.kind === 'run') return;
  if (check.kind === 'help') {
    process.stdout.write(`${flags.usage}\n`);
    process.exit(0);
  }
  process.stderr.write(`${check.message}\n\nUsage:\n${flags.usage}\n`);
  process.exit(2);
}
