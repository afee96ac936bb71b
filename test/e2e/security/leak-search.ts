import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deriveToolSecret } from '../../../src/median/index.js';

export interface FoundFile {
  path: string;
  isDirectory: boolean;
  /** Permission bits (`mode & 0o777`). */
  mode: number;
}

/** Every folder and file under `dir` (the folder itself first), without following links. */
export async function walkTree(dir: string): Promise<FoundFile[]> {
  const self = await lstat(dir);
  const found: FoundFile[] = [{ path: dir, isDirectory: self.isDirectory(), mode: self.mode & 0o777 }];
  if (!self.isDirectory()) return found;
  for (const name of (await readdir(dir)).sort()) {
    found.push(...(await walkTree(join(dir, name))));
  }
  return found;
}

/** Every file under `dir` with its text (read as latin1, so any byte sequence survives). */
export async function readTree(dir: string): Promise<Array<{ where: string; text: string }>> {
  const files = (await walkTree(dir)).filter((f) => !f.isDirectory);
  return Promise.all(files.map(async (f) => ({ where: f.path, text: await readFile(f.path, 'latin1') })));
}

/**
 * The spellings a leaked key could take: as is, JSON-escaped, URL-encoded,
 * base64 (a Basic credential), the start of its random part (a key cut
 * short in a narrow column), and the tool signing secret derived from it.
 */
export function keyNeedles(key: string): string[] {
  const secret = deriveToolSecret(key);
  return [
    ...new Set([
      key,
      JSON.stringify(key).slice(1, -1),
      encodeURIComponent(key),
      Buffer.from(key).toString('base64'),
      key.slice('median_key_'.length, 'median_key_'.length + 12),
      secret.toString('hex'),
      secret.toString('base64'),
    ]),
  ];
}

/** `where: needle` for each needle found in each source. */
export function findLeaks(sources: ReadonlyArray<{ where: string; text: string }>, needles: readonly string[]): string[] {
  const leaks: string[] = [];
  for (const { where, text } of sources) {
    for (const needle of needles) if (text.includes(needle)) leaks.push(`${where}: ${needle}`);
  }
  return leaks;
}
