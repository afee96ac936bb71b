import { CommanderError } from 'commander';
import { secretsToMask } from '../median/key.js';
import { MedianDevError, UserError } from '../shared/errors.js';
import type { CliIo } from './cli-io.js';
import { createOutputMasker } from './output-masker.js';
import { QuietFailure } from './quiet-failure.js';
import { safeJson } from '../shared/output-sanitiser.js';
import type { Config } from '../config/resolve-config.js';
import { pastableText } from './command-line.js';

/**
 * The one place where errors become output and exit codes: 0 success,
 * 1 failure, 2 usage error (SPEC §2).
 */
export function reportError(error: unknown, io: CliIo, options: { debug: boolean; json: boolean; where?: Pick<Config, 'dataDir' | 'envFile'> }): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
      return 0;
    }
    // commander has already printed its message (with "Did you mean …?").
    return 2;
  }
  if (error instanceof QuietFailure) return error.exitCode;
  // An error message may quote what it failed on: never a key.
  const masker = createOutputMasker(secretsToMask({ medianKey: io.env.MEDIAN_KEY, toolSecret: io.env.MEDIAN_TOOL_SECRET })).text;
  const where = options.where;
  const mask = (text: string): string => masker(where ? pastableText(text, io, where) : text);
  if (error instanceof MedianDevError) {
    const exitCode = error instanceof UserError ? error.exitCode : 1;
    if (options.json) {
      io.stdout.write(
        `${safeJson({ event: 'error', at: new Date().toISOString(), code: error.code, message: mask(error.message), ...(error.hint ? { hint: mask(error.hint) } : {}) })}\n`,
      );
    }
    io.stderr.write(`median-dev: ${mask(error.message)} [${error.code}]\n`);
    if (error.hint) io.stderr.write(`  → ${mask(error.hint)}\n`);
    if (options.debug && error.stack) io.stderr.write(`${mask(error.stack)}\n`);
    return exitCode;
  }
  const message = mask(error instanceof Error ? error.message : String(error));
  if (options.json) {
    io.stdout.write(`${safeJson({ event: 'error', at: new Date().toISOString(), code: 'internal_error', message })}\n`);
  }
  io.stderr.write(`median-dev: unexpected error: ${message}\n`);
  if (options.debug && error instanceof Error && error.stack) io.stderr.write(`${mask(error.stack)}\n`);
  else io.stderr.write('  → This is a bug in median-dev. Run again with --debug for the stack trace, and report it.\n');
  return 1;
}
