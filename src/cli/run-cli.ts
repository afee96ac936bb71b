import type { CliIo } from './cli-io.js';
import { createProgram } from './program.js';
import { reportError } from './report-error.js';
import type { CommandHandlers } from './command-handlers.js';

/** Runs one CLI invocation; resolves to the exit code. Never calls process.exit. */
export async function runCli(argv: string[], io: CliIo, handlers?: CommandHandlers): Promise<number> {
  const program = createProgram(io, handlers);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return reportError(error, io, { debug: argv.includes('--debug'), json: argv.includes('--json') });
  }
}
