import { join, isAbsolute, resolve } from 'node:path';
import { DEFAULTS } from '../config/defaults.js';
import { envCascadeFiles } from '../config/env-cascade.js';
import { readEnvFile } from '../config/env-file-reader.js';
import { secretsToMask } from '../median/key.js';
import { useColor, type CliIo } from './cli-io.js';
import { createProgram } from './program.js';
import { reportError } from './report-error.js';
import type { CommandHandlers } from './command-handlers.js';
import { guardOutput, secretsOfEnv } from './guarded-output.js';

/** The env file a command will read, from argv alone (commander has not parsed it yet). */
function envFileOf(argv: readonly string[], cwd: string): string | undefined {
  let file = '.env.local';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--no-env-file') return undefined;
    if ((arg === '--env-file' || arg === '--env') && argv[i + 1] !== undefined) file = argv[i + 1]!;
    else if (arg.startsWith('--env-file=')) file = arg.slice('--env-file='.length);
    else if (arg.startsWith('--env=')) file = arg.slice('--env='.length);
  }
  return isAbsolute(file) ? file : join(cwd, file);
}

/** The data dir a command will use, from argv alone (as envFileOf). */
function dataDirOf(argv: readonly string[], io: Pick<CliIo, 'cwd' | 'env'>): string {
  let dir = io.env.MEDIAN_DEV_DIR || DEFAULTS.dataDir;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--data-dir' && argv[i + 1] !== undefined) dir = argv[i + 1]!;
    else if (arg.startsWith('--data-dir=')) dir = arg.slice('--data-dir='.length);
  }
  return resolve(io.cwd, dir);
}

/**
 * The secrets of every env file a command may read its key from (the env
 * file and its cascade), read before parsing so that even a usage error
 * masks them.
 */
async function secretsOfEnvFiles(argv: readonly string[], cwd: string): Promise<string[]> {
  const file = envFileOf(argv, cwd);
  if (file === undefined) return [];
  const secrets: string[] = [];
  for (const each of envCascadeFiles(file)) {
    try {
      const vars = await readEnvFile(each);
      secrets.push(...secretsToMask({ medianKey: vars.MEDIAN_KEY, toolSecret: vars.MEDIAN_TOOL_SECRET }));
    } catch {
      /* Unreadable: the command itself reports that, with its code. */
    }
  }
  return secrets;
}

/** Runs one CLI invocation; resolves to the exit code. Never calls process.exit. */
export async function runCli(argv: string[], raw: CliIo, handlers?: CommandHandlers): Promise<number> {
  const { io } = guardOutput(raw, {
    allowStyles: useColor(raw),
    secrets: [...secretsOfEnv(raw.env), ...(await secretsOfEnvFiles(argv, raw.cwd))],
  });
  // Only the command argv names is built, unless no command has that name (help, a typo: the whole tree).
  const named = argv[0]?.startsWith('-') === false ? argv[0] : undefined;
  let program = createProgram(io, handlers, named);
  if (named !== undefined && !program.commands.some((command) => command.name() === named)) program = createProgram(io, handlers);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    // Hints name commands: pasted, they must reach this data dir and env file.
    const where = { dataDir: dataDirOf(argv, io), envFile: envFileOf(argv, io.cwd) ?? null };
    return reportError(error, io, { debug: argv.includes('--debug'), json: argv.includes('--json'), where });
  }
}
