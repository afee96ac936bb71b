import { windowsCommandLine } from './windows-command-line.js';

/** How to hand a user command given as argv to `child_process.spawn`. */
export interface SpawnCommandSpec {
  file: string;
  args: string[];
  /** Only on win32, where `npm` is `npm.cmd` and needs cmd.exe. */
  shell: boolean;
  /** POSIX: the child leads its own process group, so the whole group can be signalled. */
  detached: boolean;
  windowsHide: boolean;
}

export function spawnCommandSpec(
  command: readonly string[],
  platform: NodeJS.Platform = process.platform,
): SpawnCommandSpec {
  const [file, ...args] = command;
  if (file === undefined || file === '') throw new TypeError('spawnCommandSpec needs a non-empty command');
  if (platform === 'win32') {
    // Node runs `cmd.exe /d /s /c "<file>"` with the line built here; no
    // separate args (Node would join them unquoted).
    return { file: windowsCommandLine(command), args: [], shell: true, detached: false, windowsHide: true };
  }
  return { file, args, shell: false, detached: true, windowsHide: true };
}

/** `npm run dev`, `node -e "…"`: how a command is named in messages (not for running). */
export function describeCommand(command: readonly string[]): string {
  return command.map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part))).join(' ');
}
