import { isAbsolute, relative } from 'node:path';

/**
 * Where MEDIAN_KEY came from, as the TUI shows it: `environment`, or the env
 * file as a path from the project folder (absolute when outside it).
 */
export function keySourceLabel(file: string | undefined, cwd: string): string {
  if (file === undefined) return 'environment';
  const rel = relative(cwd, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}
