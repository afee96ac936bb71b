import type { Logger } from '../shared/logger.js';
import type { CliIo } from './cli-io.js';
import { createOutputMasker } from './output-masker.js';

/** The daemon's logger in a terminal: warnings and errors on stderr, keys masked; debug lines with --debug. */
export function createCliLogger(io: CliIo, options: { debug: boolean; quiet: boolean; secrets?: ReadonlyArray<string | undefined> }): Logger {
  const mask = createOutputMasker(options.secrets ?? []).text;
  const write = (level: string, message: string) => {
    if (options.quiet) return;
    io.stderr.write(`${level.padEnd(9)}${mask(message)}\n`);
  };
  return {
    debug: (m) => (options.debug ? write('debug', m) : undefined),
    info: () => undefined, // the daemon reports what matters as events
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  };
}
