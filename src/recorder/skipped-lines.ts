import { callsDirOf } from './segment-files.js';

/**
 * What to say, once, when a read of the store skipped lines that are not
 * call records (break 7 of issue #11): they are left on disk as they are.
 */
export function skippedLinesNote(dataDir: string, count: number): string | undefined {
  if (count === 0) return undefined;
  return `Skipped ${count} line${count === 1 ? '' : 's'} in ${callsDirOf(dataDir)} that ${count === 1 ? 'is' : 'are'} not a call record (edited by hand, or written by another tool); ${count === 1 ? 'it is' : 'they are'} left as ${count === 1 ? 'it is' : 'they are'}.`;
}
