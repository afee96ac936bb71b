/**
 * Builds a cmd.exe command line from argv so every argument reaches the
 * program unchanged. Windows needs a shell to find `npm.cmd`, `pnpm.cmd`, …,
 * and cmd.exe gives `& | < > ^ % ! ( ) "` a meaning: each argument is quoted
 * for the C runtime's argv parser, then every cmd.exe meta character is
 * escaped with `^` (the quotes too, so cmd.exe never sees a quoted region and
 * escapes everything). Batch files (`.cmd`/`.bat`, npm's shims) hand `%*` to
 * cmd.exe a second time, so their arguments are escaped twice.
 */

const CMD_META_CHARACTERS = /([()\][%!^"`<>&|;, *?])/g;

/** Arguments made only of these need neither quotes nor escapes. */
const PLAIN_ARGUMENT = /^[A-Za-z0-9_\-.:/@+\\]+$/;

/** Commands that are batch-file shims on Windows when named without extension. */
const KNOWN_BATCH_SHIMS = new Set(['npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'yarnpkg', 'corepack']);

export function isWindowsBatchCommand(commandName: string): boolean {
  if (/\.(cmd|bat)$/i.test(commandName)) return true;
  const base = commandName.split(/[\\/]/).pop() ?? commandName;
  return KNOWN_BATCH_SHIMS.has(base.toLowerCase());
}

export function quoteWindowsArgument(argument: string, options: { isBatchCommand: boolean }): string {
  if (PLAIN_ARGUMENT.test(argument)) return argument;
  // Backslashes before a quote are doubled and the quote escaped; trailing
  // backslashes are doubled because a closing quote follows them.
  let quoted = argument.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1');
  quoted = `"${quoted}"`.replace(CMD_META_CHARACTERS, '^$1');
  if (options.isBatchCommand) quoted = quoted.replace(CMD_META_CHARACTERS, '^$1');
  return quoted;
}

export function escapeWindowsCommandName(commandName: string): string {
  return commandName.replace(/\//g, '\\').replace(CMD_META_CHARACTERS, '^$1');
}

/** `['npm', 'run', 'dev']` → `npm run dev`, safe to hand to `cmd.exe /d /s /c "…"`. */
export function windowsCommandLine(command: readonly string[]): string {
  const [name, ...args] = command;
  if (name === undefined) throw new TypeError('windowsCommandLine needs a command');
  const isBatchCommand = isWindowsBatchCommand(name);
  return [escapeWindowsCommandName(name), ...args.map((arg) => quoteWindowsArgument(arg, { isBatchCommand }))].join(' ');
}
