import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ignoreNewDataDir } from '../../../src/config/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';

async function useCheckout(gitignore?: string): Promise<string> {
  const root = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-git-')), (dir) => rm(dir, { recursive: true, force: true }));
  await mkdir(join(root, '.git'));
  if (gitignore !== undefined) await writeFile(join(root, '.gitignore'), gitignore);
  return root;
}

describe('ignoreNewDataDir', () => {
  it('adds a new data dir to the checkout’s .gitignore, keeping what was there', async () => {
    const root = await useCheckout('node_modules/');
    const said = await ignoreNewDataDir(join(root, '.median-dev'));
    expect(said).toContain('/.median-dev/');
    expect(await readFile(join(root, '.gitignore'), 'utf8')).toBe(
      "node_modules/\n# median-dev's recordings and state (they hold test data)\n/.median-dev/\n",
    );
  });

  it('creates .gitignore when there is none, and uses the path from the root', async () => {
    const root = await useCheckout();
    await mkdir(join(root, 'app'));
    await ignoreNewDataDir(join(root, 'app', '.median-dev'));
    expect(await readFile(join(root, '.gitignore'), 'utf8')).toContain('/app/.median-dev/');
  });

  it.each([['.median-dev/'], ['/.median-dev'], ['.median-dev']])('leaves a .gitignore that already has %s', async (line) => {
    const root = await useCheckout(`${line}\n`);
    expect(await ignoreNewDataDir(join(root, '.median-dev'))).toBeUndefined();
    expect(await readFile(join(root, '.gitignore'), 'utf8')).toBe(`${line}\n`);
  });

  it('does nothing for a data dir that exists already, or outside a checkout', async () => {
    const root = await useCheckout('');
    await mkdir(join(root, '.median-dev'));
    expect(await ignoreNewDataDir(join(root, '.median-dev'))).toBeUndefined();
    const plain = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-plain-')), (dir) => rm(dir, { recursive: true, force: true }));
    expect(await ignoreNewDataDir(join(plain, '.median-dev'))).toBeUndefined();
  });
});
