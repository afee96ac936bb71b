import { mkdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { CallRecord } from '../median/call-record.js';
import { UserError, errorCode } from '../shared/errors.js';
import { writeFileAtomic } from '../shared/private-files.js';
import { createSecretMasker } from '../shared/secret-masker.js';
import { savedCallFromRecord } from './save-from-record.js';
import { serializeSavedCall, type SavedCall } from './saved-call.js';

/** Where saved calls live unless told otherwise: a folder of the project, meant to be committed. */
export const DEFAULT_CALLS_DIR = 'median-calls';

/** Anything shaped like a Median key, masked in every file written (records are masked on disk already). */
const keyShapes = createSecretMasker([]);

/** A path as the user would type it from `cwd`. */
export function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/**
 * Writes a saved call, masked once more as a last guard (`mask`: the
 * caller's secrets; key shapes always). 0644: the file is meant to be
 * committed and holds no secret.
 */
export async function writeSavedCall(path: string, saved: SavedCall, mask: (text: string) => string): Promise<void> {
  try {
    await mkdir(resolve(path, '..'), { recursive: true });
    await writeFileAtomic(path, keyShapes.mask(mask(serializeSavedCall(saved))), { mode: 0o644 });
  } catch (error) {
    throw new UserError('saved_call_write_failed', `Cannot write ${path} (${errorCode(error) ?? String(error)}).`, {
      hint: 'Pick a folder you can write to with --dir.',
      cause: error,
    });
  }
}

/**
 * Saves one record as a test from a screen (the TUI's key, the inspector's
 * button): under its default name, or `<name>-2`, `-3`… when another call
 * has that name; the same record saved again is left as it is.
 */
export async function saveRecordAsTest(
  record: CallRecord,
  options: { callsDir: string; cwd: string; mask: (text: string) => string },
): Promise<{ file: string; isNew: boolean }> {
  const saved = savedCallFromRecord(record);
  for (let n = 1; n < 1_000; n++) {
    const name = n === 1 ? saved.name : `${saved.name}-${n}`;
    const path = join(options.callsDir, `${name}.json`);
    const existing = await readFile(path, 'utf8').catch(() => undefined);
    if (existing !== undefined) {
      if (existing.includes(`"recordId": ${JSON.stringify(record.id)}`)) return { file: shownPath(path, options.cwd), isNew: false };
      continue;
    }
    await writeSavedCall(path, { ...saved, name }, options.mask);
    return { file: shownPath(path, options.cwd), isNew: true };
  }
  throw new UserError('saved_call_exists', `${saved.name} is saved 999 times already.`, { hint: 'Remove some of them, or save with `median-dev calls save --as <name>`.' });
}
