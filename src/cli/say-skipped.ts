import { skippedLinesNote } from '../recorder/skipped-lines.js';
import type { CallStore } from '../recorder/call-store.js';
import { writeLine, type CliIo } from './cli-io.js';

/** Says on stderr, once, that a command's reads skipped lines that are not call records. */
export function saySkippedLines(store: CallStore, dataDir: string, io: CliIo): void {
  const note = skippedLinesNote(dataDir, store.skippedLines());
  if (note) writeLine(io.stderr, `median-dev: ${note}`);
}
