import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Opens text in the user's $VISUAL / $EDITOR (vi when neither is set) and
 * returns the edited text, or undefined when the editor failed.
 */
export function createTerminalEditor(env: Readonly<Record<string, string | undefined>>): { open(text: string): Promise<string | undefined> } {
  const editor = env.VISUAL || env.EDITOR || (process.platform === 'win32' ? 'notepad' : 'vi');
  return {
    async open(text) {
      const dir = await mkdtemp(join(tmpdir(), 'median-dev-input-'));
      const file = join(dir, 'input.json');
      try {
        await writeFile(file, text, { mode: 0o600 });
        // The editor command may carry flags ("code --wait"): run it through the shell.
        const result = spawnSync(`${editor} "${file}"`, { stdio: 'inherit', shell: true });
        if (result.status !== 0) return undefined;
        return await readFile(file, 'utf8');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
