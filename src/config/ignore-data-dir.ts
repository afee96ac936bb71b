import { appendFile, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { errorCode } from '../shared/errors.js';

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return false;
    throw error;
  }
}

/** The nearest folder at or above `dir` that holds a `.git`, if any. */
async function findGitRoot(dir: string): Promise<string | undefined> {
  for (let current = dir; ; current = dirname(current)) {
    if (await exists(join(current, '.git'))) return current;
    if (dirname(current) === current) return undefined;
  }
}

/**
 * When the data dir is new and inside a git checkout, adds it to the
 * checkout's .gitignore (recordings hold test data and must not be
 * committed). Returns what it did, for a one-time log line, or undefined.
 */
export async function ignoreNewDataDir(dataDir: string): Promise<string | undefined> {
  if (await exists(dataDir)) return undefined;
  const root = await findGitRoot(dirname(dataDir));
  if (!root) return undefined;
  const rel = relative(root, dataDir).split(sep).join('/');
  if (rel === '' || rel.startsWith('..')) return undefined;
  const gitignore = join(root, '.gitignore');
  let text = '';
  try {
    text = await readFile(gitignore, 'utf8');
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') return undefined; // unreadable: leave it to the user
  }
  const forms = new Set([rel, `${rel}/`, `/${rel}`, `/${rel}/`]);
  if (text.split(/\r?\n/).some((line) => forms.has(line.trim()))) return undefined;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const prefix = text.length > 0 && !text.endsWith('\n') ? eol : '';
  await appendFile(gitignore, `${prefix}# median-dev's recordings and state (they hold test data)${eol}/${rel}/${eol}`);
  return `Added /${rel}/ to ${gitignore}: median-dev's recordings stay out of git.`;
}
