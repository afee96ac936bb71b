import { execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';

/**
 * Issue 18 item 14: an env file that is a FIFO hung `start` and `calls`
 * with nothing said (opening a FIFO for reading waits for a writer); a
 * device (/dev/zero) never ends. Each is refused with env_file_not_regular,
 * at once. The "attacker" is whatever sits at the env file's path.
 */
const KINDS = [
  ['a FIFO', async (dir: string) => execFileSync('mkfifo', [join(dir, '.env.local')])],
  ['a device', (dir: string) => symlink('/dev/zero', join(dir, '.env.local'))],
  ['a folder', (dir: string) => mkdir(join(dir, '.env.local'))],
] as const;

const START = ['start', '--json', '--no-tui', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--target', 'http://127.0.0.1:9'];

describe('item 14: an env file that is not a regular file', () => {
  for (const [name, plant] of KINDS) {
    it(`${name}: start and calls stop at once with env_file_not_regular`, async () => {
      const dir = await useTempDir('median-dev-fifo-');
      await plant(dir);
      for (const argv of [START, ['calls']]) {
        const cli = spawnCli([...argv, '--data-dir', join(dir, '.median-dev')], { cwd: dir });
        const code = await Promise.race([cli.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000).unref())]);
        expect(code).toBe(1);
        expect(`${cli.stdout()}${cli.stderr()}`).toContain('env_file_not_regular');
      }
    }, 30_000);
  }
});
