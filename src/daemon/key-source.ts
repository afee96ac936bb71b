import { isAbsolute, relative } from 'node:path';
import type { Config } from '../config/index.js';

/**
 * Where MEDIAN_KEY came from, as the TUI shows it: `environment`, or the env
 * file as a path from the project folder (absolute when outside it).
 */
export function keySourceLabel(file: string | undefined, cwd: string): string {
  if (file === undefined) return 'environment';
  const rel = relative(cwd, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/**
 * Where the config's MEDIAN_KEY came from, as every command says it (the TUI
 * header, `start`'s first line, `doctor`): one label, so they never disagree.
 */
export function configKeySource(config: Pick<Config, 'keySource' | 'keyFile' | 'envFile' | 'cwd'>): string {
  return keySourceLabel(config.keySource === 'env' ? undefined : (config.keyFile ?? config.envFile ?? undefined), config.cwd);
}
