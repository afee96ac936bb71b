import { accessSync, constants, statSync } from 'node:fs';
import { delimiter as posixDelimiter, join, win32 } from 'node:path';

/**
 * The full path of a program the user installed (`cloudflared`, `ssh`), found
 * on PATH as the shell would, or undefined. Windows: each PATHEXT ending is
 * tried (`cloudflared.exe`), and the folders are split on `;`. Nothing is
 * ever downloaded: a missing program is the caller's coded error with the
 * install hint.
 */
export function findExecutable(
  name: string,
  env: { PATH?: string | undefined; Path?: string | undefined; PATHEXT?: string | undefined },
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const isWindows = platform === 'win32';
  const pathText = env.PATH ?? env.Path ?? '';
  const folders = pathText.split(isWindows ? win32.delimiter : posixDelimiter).filter((folder) => folder !== '');
  const endings = isWindows ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  for (const folder of folders) {
    for (const ending of endings) {
      const candidate = isWindows ? win32.join(folder, `${name}${ending}`) : join(folder, name);
      if (isExecutableFile(candidate, isWindows)) return candidate;
    }
  }
  return undefined;
}

function isExecutableFile(path: string, isWindows: boolean): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    // Windows has no execute bit: an existing file with a PATHEXT ending runs.
    if (!isWindows) accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false; // not there, or not runnable by us: keep looking along PATH
  }
}
