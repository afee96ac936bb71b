import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { parseInputJson } from '../replay/replay-request.js';
import { UserError, errorCode } from '../shared/errors.js';

/** `--input <json|@file>` → an object. */
export async function readInputFlag(value: string, cwd: string): Promise<Record<string, unknown>> {
  if (!value.startsWith('@')) return parseInputJson(value, '--input');
  const file = value.slice(1);
  const path = isAbsolute(file) ? file : resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UserError('input_file_unreadable', `Cannot read the input file ${path} (${errorCode(error) ?? String(error)}).`, { exitCode: 2 });
  }
  return parseInputJson(text, path);
}
