import { stat } from 'node:fs/promises';
import { UserError, errorCode } from '../shared/index.js';
import { describeCommand } from '../platform/index.js';

/** The `child_spawn_failed` error for a command that could not be started, saying what to fix. */
export async function spawnFailure(command: readonly string[], cwd: string, cause: unknown): Promise<UserError> {
  const name = command[0] ?? '';
  const described = describeCommand(command);
  const code = errorCode(cause);
  const details = { command: [...command], cwd, errno: code ?? null };
  const fail = (reason: string, hint: string) =>
    new UserError('child_spawn_failed', `Could not start the dev server command "${described}": ${reason}`, {
      hint,
      cause,
      details,
    });

  if (code === 'ENOENT' || code === 'ENOTDIR') {
    // Node reports a missing working folder as ENOENT of the command too.
    const isFolder = await stat(cwd).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (!isFolder) return fail(`the folder ${cwd} does not exist.`, 'Run median-dev start from your project folder.');
    return fail(
      `"${name}" was not found.`,
      `Check that ${name} is installed and on your PATH, or give its full path after --, e.g. median-dev start -- npm run dev.`,
    );
  }
  if (code === 'EACCES') {
    return fail(
      `"${name}" is not executable.`,
      `Check the file's permissions (chmod +x ${name}) or run it through its interpreter.`,
    );
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return fail(`${message}.`, 'Check the command after -- runs on its own in this folder.');
}
