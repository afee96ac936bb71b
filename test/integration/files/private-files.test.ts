import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { tempPathFor, writeFileAtomic } from '../../../src/shared/private-files.js';
import { writeToolsUrl } from '../../../src/config/env-file-writer.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const URL = 'https://new.lt.median.test/api/median';
const KEY = 'median_key_' + 'Zq7Xw2Lp'.repeat(4) + 'abcd';
const isPosix = process.platform !== 'win32';

async function useFolder(): Promise<string> {
  return useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-files-')), (dir) => rm(dir, { recursive: true, force: true }));
}

describe('tempPathFor', () => {
  it.each([
    ['.env.local', ['.env*.local', '.env*', '*.local']],
    ['.env.development.local', ['.env*.local', '.env*', '*.local']],
    ['.env', ['.env*']],
    ['state.json', ['*.json']],
  ])('names the temp file of %s so the usual ignore patterns cover it', (name, patterns) => {
    const temp = tempPathFor(join('/p', name), '3f9a1c2b4d5e');
    const base = temp.slice(3);
    expect(base).not.toBe(name);
    expect(base.startsWith('.')).toBe(true);
    for (const pattern of patterns) expect(picomatch.isMatch(base, pattern, { dot: true })).toBe(true);
  });
});

describe('writeFileAtomic', () => {
  it('removes its temp file when the write fails at the rename, and leaves the folder as it was', async () => {
    const dir = await useFolder();
    const path = join(dir, '.env.local');
    await mkdir(join(path, 'in-the-way'), { recursive: true }); // a folder with content: rename onto it fails
    await expect(writeFileAtomic(path, `MEDIAN_KEY=${KEY}\n`)).rejects.toMatchObject({ code: expect.stringMatching(/^E/) });
    expect(await readdir(dir)).toEqual(['.env.local']);
  });

  it('fails cleanly, with nothing left behind, when the folder does not exist', async () => {
    const dir = await useFolder();
    await expect(writeFileAtomic(join(dir, 'gone', 'state.json'), '{}')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('with followSymlinks, writes the file a link points at and keeps the link', async () => {
    const dir = await useFolder();
    await mkdir(join(dir, 'shared'));
    const real = join(dir, 'shared', 'env');
    await writeFile(real, 'A=1\n');
    await symlink(join('shared', 'env'), join(dir, '.env.local'));
    await writeFileAtomic(join(dir, '.env.local'), 'A=2\n', { followSymlinks: true });
    expect((await lstat(join(dir, '.env.local'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(dir, '.env.local'))).toBe(join('shared', 'env'));
    expect(await readFile(real, 'utf8')).toBe('A=2\n');
  });

  it('with followSymlinks, says ELOOP for a link cycle and writes nothing', async () => {
    const dir = await useFolder();
    await symlink('b', join(dir, 'a'));
    await symlink('a', join(dir, 'b'));
    await expect(writeFileAtomic(join(dir, 'a'), 'x', { followSymlinks: true })).rejects.toMatchObject({ code: 'ELOOP' });
    expect((await readdir(dir)).sort()).toEqual(['a', 'b']);
  });
});

describe('writeToolsUrl', () => {
  it('keeps a Latin-1 byte of another line as it is', async () => {
    const dir = await useFolder();
    const path = join(dir, '.env.local');
    await writeFile(path, Buffer.from('NAME=caf\xe9\nMEDIAN_TOOLS_URL=https://old\n', 'latin1'));
    expect(await writeToolsUrl(path, URL)).toBe(true);
    expect(await readFile(path)).toEqual(Buffer.from(`NAME=caf\xe9\nMEDIAN_TOOLS_URL=${URL}\n`, 'latin1'));
  });

  it('edits the target of a symlinked env file: the link stays, the target gets the new URL', async () => {
    const dir = await useFolder();
    const real = join(dir, 'secrets.env');
    await writeFile(real, `MEDIAN_KEY=${KEY}\nMEDIAN_TOOLS_URL=https://old\n`);
    await symlink('secrets.env', join(dir, '.env.local'));
    expect(await writeToolsUrl(join(dir, '.env.local'), URL)).toBe(true);
    expect((await lstat(join(dir, '.env.local'))).isSymbolicLink()).toBe(true);
    expect(await readFile(real, 'utf8')).toBe(`MEDIAN_KEY=${KEY}\nMEDIAN_TOOLS_URL=${URL}\n`);
    expect((await readdir(dir)).sort()).toEqual(['.env.local', 'secrets.env']);
  });

  it('replaces the line of a CR-only file instead of adding a second one', async () => {
    const dir = await useFolder();
    const path = join(dir, '.env.local');
    await writeFile(path, 'A=1\rMEDIAN_TOOLS_URL=https://old\r');
    await writeToolsUrl(path, URL);
    expect(await readFile(path, 'utf8')).toBe(`A=1\rMEDIAN_TOOLS_URL=${URL}\r`);
  });

  it('creates a missing env file 0600', async () => {
    const dir = await useFolder();
    const path = join(dir, '.env.local');
    await writeToolsUrl(path, URL);
    expect(await readFile(path, 'utf8')).toBe(`MEDIAN_TOOLS_URL=${URL}\n`);
    if (isPosix) expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
