import { readFile, readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { shownPath } from '../saved-calls/saved-call-files.js';
import picomatch from 'picomatch';
import { parseSavedCall, type LoadedSavedCall } from '../saved-calls/saved-call.js';
import { UserError, errorCode } from '../shared/errors.js';

export { DEFAULT_CALLS_DIR, saveRecordAsTest, shownPath, writeSavedCall } from '../saved-calls/index.js';

export function callsDirOf(options: Record<string, unknown>, cwd: string): string {
  const dir = typeof options.dir === 'string' && options.dir !== '' ? options.dir : 'median-calls';
  return isAbsolute(dir) ? dir : resolve(cwd, dir);
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

const READS_AT_ONCE = 64;

export async function loadSavedCalls(files: readonly string[], cwd: string): Promise<LoadedSavedCall[]> {
  const loadOne = async (file: string): Promise<LoadedSavedCall> => {
    const shown = shownPath(file, cwd);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new UserError('invalid_saved_call', `Cannot read ${shown} (${errorCode(error) ?? String(error)}).`);
    }
    return { file: shown, saved: parseSavedCall(text, shown) };
  };
  // A few dozen reads at a time: a folder of 1,000 calls reads in one go, without running out of file handles.
  const loaded: LoadedSavedCall[] = [];
  for (let i = 0; i < files.length; i += READS_AT_ONCE) loaded.push(...(await Promise.all(files.slice(i, i + READS_AT_ONCE).map(loadOne))));
  return loaded;
}

