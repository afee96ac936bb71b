import { fstatSync, statSync, type Stats } from 'node:fs';

/**
 * What a standard output descriptor leads to, told from fstat alone (no
 * node:tty, which loads net: under the bin's V8 options 11–14 ms of a one-shot
 * command's start):
 * - `pipe`: a pipe or a socket (`show … | jq`; what a Node parent's `stdio: 'pipe'` gives a child);
 * - `file`: a regular file (`show … > call.json`);
 * - `terminal`: a character device other than the null device, on macOS and Linux: a terminal
 *   (/dev/pts/N, /dev/ttyN, the console). Other character devices (/dev/zero, /dev/full) make no
 *   sense as an output; one would only get a terminal's colours;
 * - `other`: anything else, a closed descriptor, the null device, and every character device on
 *   Windows (a console is written through its own API there: Node's stream does that).
 */
export type OutputDevice = 'pipe' | 'file' | 'terminal' | 'other';

export function outputDeviceOf(fd: number, platform: NodeJS.Platform): OutputDevice {
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch {
    return 'other';
  }
  if (stats.isFIFO() || stats.isSocket()) return 'pipe';
  if (stats.isFile()) return 'file';
  if (!stats.isCharacterDevice() || platform === 'win32') return 'other';
  return isNullDevice(stats) ? 'other' : 'terminal';
}

/** /dev/null, by its device number; a system without one says nothing is a terminal. */
function isNullDevice(stats: Stats): boolean {
  try {
    return statSync('/dev/null').rdev === stats.rdev;
  } catch {
    return true;
  }
}
