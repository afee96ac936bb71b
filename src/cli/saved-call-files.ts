import { mkdir, readFile, readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import type { CallRecord } from '../median/index.js';
import { parseSavedCall, savedCallFromRecord, serializeSavedCall, type LoadedSavedCall, type SavedCall } from '../saved-calls/index.js';
import { UserError, errorCode } from '../shared/errors.js';
import { writeFileAtomic } from '../shared/private-files.js';
import type { OutputMasker } from './output-masker.js';

/** Where saved calls live unless `--dir` says otherwise: a folder of the project, meant to be committed. */
export const DEFAULT_CALLS_DIR = 'median-calls';

export function callsDirOf(options: Record<string, unknown>, cwd: string): string {
  const dir = typeof options.dir === 'string' && options.dir !== '' ? options.dir : DEFAULT_CALLS_DIR;
  return isAbsolute(dir) ? dir : resolve(cwd, dir);
}

/** A path as the user would type it from `cwd`. */
export function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

async function jsonFilesUnder(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return [];
    throw error;
  }
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/**
 * The saved call files a `test` run takes: every `.json` under the calls
 * folder, or those the arguments name (a file, a folder, or a glob matched
 * against paths from the working folder, e.g. `median-calls/order*.json`).
 */
export async function findSavedCallFiles(args: readonly string[], callsDir: string, cwd: string): Promise<string[]> {
  if (args.length === 0) return jsonFilesUnder(callsDir);
  const found = new Set<string>();
  for (const arg of args) {
    const path = isAbsolute(arg) ? arg : resolve(cwd, arg);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) found.add(path);
    else if (info?.isDirectory()) for (const file of await jsonFilesUnder(path)) found.add(file);
    else {
      const isMatch = picomatch(arg.split(sep).join('/'));
      const candidates = await jsonFilesUnder(callsDir);
      const matched = candidates.filter((file) => isMatch(relative(cwd, file).split(sep).join('/')) || isMatch(relative(callsDir, file).split(sep).join('/')));
      if (matched.length === 0) {
        throw new UserError('no_saved_calls', `No saved call matches "${arg}".`, {
          hint: `Name a file, a folder, or a glob like "${shownPath(callsDir, cwd)}/order*.json".`,
        });
      }
      for (const file of matched) found.add(file);
    }
  }
  return [...found].sort();
}

export async function loadSavedCalls(files: readonly string[], cwd: string): Promise<LoadedSavedCall[]> {
  const loaded: LoadedSavedCall[] = [];
  for (const file of files) {
    const shown = shownPath(file, cwd);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new UserError('invalid_saved_call', `Cannot read ${shown} (${errorCode(error) ?? String(error)}).`);
    }
    loaded.push({ file: shown, saved: parseSavedCall(text, shown) });
  }
  return loaded;
}

/**
 * Writes a saved call, masked once more as a last guard (records are masked
 * on disk already). 0644: the file is meant to be committed and holds no
 * secret.
 */
export async function writeSavedCall(path: string, saved: SavedCall, mask: OutputMasker): Promise<void> {
  try {
    await mkdir(resolve(path, '..'), { recursive: true });
    await writeFileAtomic(path, mask.text(serializeSavedCall(saved)), { mode: 0o644 });
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
export async function saveRecordAsTest(record: CallRecord, options: { callsDir: string; cwd: string; mask: OutputMasker }): Promise<{ file: string; isNew: boolean }> {
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
