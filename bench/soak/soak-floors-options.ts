/**
 * The flags of node dist/bench/soak-floors.js: the soak's own (soak-options.ts,
 * with this bench's defaults: 30,000 calls, a drop every 3,000) plus which
 * variants run and how many rounds. It never writes BENCHMARKS.md.
 */
import { SoakUsageError, parseSoakOptions, type SoakOptions } from './soak-options.js';

export type SoakVariantKind = 'daemon' | 'record' | 'stock';
export const SOAK_VARIANTS: readonly SoakVariantKind[] = ['daemon', 'record', 'stock'];

/** `daemon`, or `daemon+--some-v8-flag=1+--another`: the kind and node options added before the bin's own. */
export interface SoakVariant {
  name: string;
  kind: SoakVariantKind;
  nodeArgs: string[];
}

function parseVariant(text: string): SoakVariant {
  const [kind, ...nodeArgs] = text.split('+');
  if (!(SOAK_VARIANTS as readonly string[]).includes(kind ?? '') || nodeArgs.some((a) => !a.startsWith('--'))) {
    throw new SoakUsageError(`--variants takes ${SOAK_VARIANTS.join(', ')}, each optionally followed by +--node-option…, not ${JSON.stringify(text)}.`);
  }
  return { name: text, kind: kind as SoakVariantKind, nodeArgs };
}

export interface SoakFloorsOptions {
  soak: Readonly<SoakOptions>;
  variants: readonly SoakVariant[];
  /** Each round runs every variant back to back; every other round in the reverse order. */
  rounds: number;
}

export const FLOORS_USAGE = `Usage: node dist/bench/soak-floors.js [--variants daemon,record,stock] [--rounds <n>] [--calls <n>] [--rate <calls/s>] [--drop-every <n>] [--concurrency <n>] [--max-minutes <n>] [--idle-seconds <n>]

  The soak (bench/soak.ts: same load, drops and RSS readings) of the daemon and of its floors, back to back:
  --variants     which, in this order (default daemon,record,stock): daemon = the built CLI's start as the soak runs it;
                 record = floor-tunnel.ts's record floor; stock = the stock localtunnel client; each with the bin's node options,
                 and more before them after a + (daemon+--heap-growing-percent=10: an A/B of a V8 option)
  --rounds       rounds of all the variants, the order reversed every other round (default 1)
  --calls        logical calls per variant (default 30000); --rate (250), --drop-every (calls/10), --concurrency (32),
  --idle-seconds (30), --max-minutes (hard stop of the whole run, default 15 per variant and round) as in soak.js
  BENCHMARKS.md is never written.`;

export function parseSoakFloorsOptions(argv: readonly string[]): Readonly<SoakFloorsOptions> {
  const rest: string[] = [];
  let variants: SoakVariant[] | undefined;
  let rounds = 1;
  let hasCalls = false;
  let hasMaxMinutes = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new SoakUsageError(`${flag} needs a value.`);
      return v;
    };
    if (flag === '--variants') {
      variants = value().split(',').map((n) => parseVariant(n.trim()));
    } else if (flag === '--rounds') {
      const v = value();
      rounds = Number(v);
      if (!Number.isInteger(rounds) || rounds < 1) throw new SoakUsageError(`--rounds needs a whole number ≥ 1, not ${JSON.stringify(v)}.`);
    } else if (flag === '--write' || flag === '--no-write') {
      throw new SoakUsageError(`${flag}: this bench never writes BENCHMARKS.md.`);
    } else {
      hasCalls ||= flag === '--calls';
      hasMaxMinutes ||= flag === '--max-minutes';
      rest.push(arg);
    }
  }
  const chosen = variants ?? SOAK_VARIANTS.map((kind) => parseVariant(kind));
  const extra = [...(hasCalls ? [] : ['--calls', '30000']), ...(hasMaxMinutes ? [] : ['--max-minutes', String(15 * chosen.length * rounds)])];
  const soak = parseSoakOptions([...rest, ...extra]);
  return Object.freeze({ soak: Object.freeze({ ...soak, write: false }), variants: chosen, rounds });
}
