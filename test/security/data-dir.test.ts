import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDirError } from '../../src/config/index.js';
import { spawnCli } from '../helpers/cli-harness.js';
import { freePort, useTempDir } from '../helpers/e2e-world.js';
import { useHttpServer } from '../helpers/use-http-server.js';
import { useTeardown } from '../helpers/use-teardown.js';

/** `start` without a tunnel, a child or an env file: only the proxy and the data dir. */
async function startArgs(dataDir: string): Promise<string[]> {
  return ['start', '--json', '--no-tui', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--no-env-file', '--target', `http://127.0.0.1:${await freePort()}`, '--data-dir', dataDir];
}

/** A small tmpfs mounted in a temp folder (Linux, root), unmounted when the test ends. */
async function useTmpfs(options: string): Promise<{ dir: string; mount: string }> {
  const dir = await useTempDir('median-dev-datadir-');
  const mount = join(dir, 'mnt');
  await mkdir(mount);
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', mount]);
  useTeardown(mount, (m) => execFileSync('umount', [m]));
  return { dir, mount };
}

describe('break 6: a data dir that cannot be written is a user error with a fix', () => {
  it.each([
    ['EROFS', /read-only/],
    ['EACCES', /permission/],
    ['ENOSPC', /disk is full/],
    ['ENOENT', /parent folder/],
    ['ENOTDIR', /file is in the way/],
  ])('%s in the data dir becomes data_dir_unwritable with a hint', (code, says) => {
    const error = Object.assign(new Error(`${code}: failed, mkdir '/p/.median-dev'`), { code, path: '/p/.median-dev/calls' });
    const user = dataDirError(error, '/p/.median-dev');
    expect(user).toMatchObject({ code: 'data_dir_unwritable', exitCode: 1 });
    expect(user?.message).toMatch(says);
    expect(user?.hint).toMatch(/--data-dir/);
    // The parent of the data dir (mkdir -p) counts; another path does not.
    expect(dataDirError(Object.assign(new Error(code), { code, path: '/p' }), '/p/.median-dev')).toBeDefined();
    expect(dataDirError(Object.assign(new Error(code), { code, path: '/elsewhere/x' }), '/p/.median-dev')).toBeUndefined();
  });

  it('start with a data dir the filesystem refuses (a name too long): exit 1, a data_dir code, no "bug", nothing left behind', async () => {
    const dir = await useTempDir('median-dev-datadir-');
    await mkdir(join(dir, 'project'));
    const cli = spawnCli(await startArgs(join(dir, 'project', 'x'.repeat(300), '.median-dev')), { cwd: join(dir, 'project') });
    expect(await cli.exited).toBe(1);
    expect(cli.events()).toContainEqual(expect.objectContaining({ event: 'error', code: expect.stringMatching(/^data_dir_un(?:read|writ)able$/) }));
    expect(cli.stderr()).toMatch(/\[data_dir_un(?:read|writ)able\]\n {2}→ .*--data-dir/);
    expect(cli.stderr()).not.toMatch(/bug in median-dev|\n\s+at /);
    expect(await readdir(join(dir, 'project'))).toEqual([]);
  });

  it.runIf(process.platform === 'linux' && process.getuid?.() === 0)('start on a read-only filesystem (root: a read-only tmpfs): data_dir_unwritable, EROFS', async () => {
    const { dir, mount } = await useTmpfs('ro,size=64k');
    const cli = spawnCli(await startArgs(join(mount, '.median-dev')), { cwd: dir });
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toMatch(/read-only filesystem \(EROFS\)\. \[data_dir_unwritable\]/);
    expect(cli.stderr()).not.toMatch(/bug in median-dev|\n\s+at /);
  });

  it.runIf(process.platform === 'linux' && process.getuid?.() === 0)('start on a full disk (root: a full tmpfs): data_dir_unwritable, ENOSPC, and no temp file left', async () => {
    const { dir, mount } = await useTmpfs('size=64k');
    await writeFile(join(mount, 'filler'), Buffer.alloc(64 * 1024)).catch(() => undefined);
    const cli = spawnCli(await startArgs(join(mount, '.median-dev')), { cwd: dir });
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toMatch(/disk is full \(ENOSPC\)\. \[data_dir_unwritable\]/);
    expect(cli.stderr()).not.toMatch(/bug in median-dev|\n\s+at /);
    const left = await readdir(join(mount, '.median-dev')).catch(() => []);
    expect(left.filter((name) => name.includes('tmp'))).toEqual([]);
  });
});

describe('a data dir the user set to 0500', () => {
  it.runIf(process.platform !== 'win32')('is made 0700, and start says so', async () => {
    const dir = await useTempDir('median-dev-datadir-');
    const dataDir = join(dir, '.median-dev');
    await mkdir(dataDir);
    await chmod(dataDir, 0o500);
    const target = await useHttpServer((_req, res) => res.end('ok'));
    const args = (await startArgs(dataDir)).map((a) => (a.startsWith('http://127.0.0.1:') ? target.url : a));
    const cli = spawnCli(args, { cwd: dir });
    const note = await cli.waitForEvent((e) => e.event === 'log' && /was 0500/.test(String(e.message)));
    expect(note.message).toMatch(/made it 0700/);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    await cli.stop();
  });
});
