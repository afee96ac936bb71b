import type { Writable } from 'node:stream';
import { secretsToMask } from '../median/key.js';
import { createSecretMasker, type SecretMasker } from '../shared/secret-masker.js';
import { safeTerminalOutput } from '../shared/output-sanitiser.js';
import type { CliIo } from './cli-io.js';

/**
 * The last layer between a command and the terminal: every write to stdout
 * and stderr — the command's own lines, commander's usage errors (which echo
 * the argument they refuse), error reports — has every known secret masked
 * in every spelling, and every control character escaped but `\n`, `\t` and
 * median-dev's own colours. Commands still format recorded text with
 * `safeLine`/`safeText`: this guard is the net under them, not the layer.
 *
 * Known secrets are those of the environment, of the env file read before
 * parsing (so a usage error already masks them), and those a command's
 * resolved config adds (`addSecrets`). Text merely shaped like a key is left
 * alone here (`emulate` prints the key it generated).
 */
export interface OutputGuard {
  /** The io commands get: stdout and stderr guarded, `terminal` the raw stdout for the full-screen UI. */
  io: CliIo;
  addSecrets(secrets: ReadonlyArray<string | undefined>): void;
}

type WriteArgs = [chunk: unknown, ...rest: unknown[]];

function guardStream(stream: Writable, filter: (text: string) => string): Writable {
  const text = (chunk: unknown): unknown => {
    if (typeof chunk === 'string') return filter(chunk);
    if (chunk instanceof Uint8Array) return filter(Buffer.from(chunk).toString('utf8'));
    return chunk;
  };
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return (...[chunk, ...rest]: WriteArgs) => (target.write as (...a: unknown[]) => boolean)(text(chunk), ...rest);
      if (property === 'end') {
        return (...[chunk, ...rest]: WriteArgs) =>
          typeof chunk === 'function' || chunk === undefined
            ? (target.end as (...a: unknown[]) => Writable)(chunk, ...rest)
            : (target.end as (...a: unknown[]) => Writable)(text(chunk), ...rest);
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export function guardOutput(io: CliIo, options: { allowStyles: boolean; secrets: ReadonlyArray<string | undefined> }): OutputGuard {
  const known = new Set<string>();
  let masker: SecretMasker = createSecretMasker([], { maskKeyShapes: false });
  const addSecrets = (secrets: ReadonlyArray<string | undefined>) => {
    const before = known.size;
    for (const secret of secrets) if (typeof secret === 'string' && secret !== '') known.add(secret);
    if (known.size !== before) masker = createSecretMasker([...known], { maskKeyShapes: false });
  };
  addSecrets(options.secrets);
  const filter = (text: string) => safeTerminalOutput(masker.mask(text), { allowStyles: options.allowStyles });
  return {
    // On top of `io`, not a copy of it: its getters (main.ts's stdin) stay unread until a command reads them.
    io: Object.assign(Object.create(io) as CliIo, { stdout: guardStream(io.stdout, filter), stderr: guardStream(io.stderr, filter), terminal: io.terminal ?? io.stdout, addSecrets }),
    addSecrets,
  };
}

/** The key and secrets to mask from an environment: `MEDIAN_KEY`, `MEDIAN_TOOL_SECRET`, the derived secret. */
export function secretsOfEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  return secretsToMask({ medianKey: env.MEDIAN_KEY, toolSecret: env.MEDIAN_TOOL_SECRET });
}
