import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freeTestPort } from '../helpers/free-test-port.js';
import { checkJunitShape } from '../helpers/junit-shape.js';
import { useTeardown } from '../helpers/use-teardown.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = fileURLToPath(new URL('./sample-project/', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * Makes the sample project depend on the packed median-dev (a devDependency, as a
 * tool its CI runs) with the package-lock.json npm would commit:
 * median-dev's own entries for its dependencies (the packages of this
 * repository's lockfile that are not its dev dependencies), each a dev
 * dependency of the project here. A lockfile, not `npm install <tarball>`:
 * npm resolves a dependency range by its registry document, which `npm ci`
 * never fetches, so on a machine whose npm cache only `npm ci` filled an
 * offline install of the bare tarball fails (ENOTCACHED for blessed); the
 * tarballs a lockfile names by integrity are there.
 */
async function addMedianDev(project: string, pack: { filename: string; integrity: string }): Promise<void> {
  type Lock = { packages: Record<string, Record<string, unknown> & { dev?: boolean }> };
  const ours = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & { version: string };
  const ourLock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
  const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as { name: string; version: string };
  const devDependencies = { 'median-dev': `file:../${pack.filename}` };
  const packages: Lock['packages'] = {
    '': { name: manifest.name, version: manifest.version, devDependencies },
    'node_modules/median-dev': {
      version: ours.version,
      resolved: devDependencies['median-dev'],
      integrity: pack.integrity,
      dev: true,
      license: ours['license'],
      dependencies: ours['dependencies'],
      optionalDependencies: ours['optionalDependencies'],
      bin: ours['bin'],
      engines: ours['engines'],
    },
  };
  for (const [path, entry] of Object.entries(ourLock.packages)) {
    if (path !== '' && !entry.dev) packages[path] = { ...entry, dev: true };
  }
  await writeFile(join(project, 'package.json'), `${JSON.stringify({ ...manifest, devDependencies }, null, 2)}\n`);
  await writeFile(join(project, 'package-lock.json'), `${JSON.stringify({ name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
}

/**
 * What a CI job does with a project that committed its median-calls/: a
 * fresh clone, `npm ci` (median-dev as its packed tarball, offline),
 * `median-dev test -- node server.js` with no key, no account, no network.
 */
describe('CI on a fresh clone of a sample project with committed median-calls/', () => {
  it('installs median-dev from its tarball offline and passes every saved call, JUnit written, the server stopped', { timeout: 300_000 }, async () => {
    const work = await realpath(await mkdtemp(join(tmpdir(), 'median-dev-ci-like-')));
    useTeardown(work, (dir) => rm(dir, { recursive: true, force: true }));
    // The package as npm would publish it (dist/ is built by `npm run test:ci-like`; no scripts run here).
    const packed = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    const [pack] = JSON.parse(packed.stdout) as Array<{ filename: string; integrity: string }>;

    // The sample project as a repository, then a fresh clone of it.
    const origin = join(work, 'my-shop-origin');
    await cp(SAMPLE, origin, { recursive: true });
    await addMedianDev(origin, pack!);
    const git = (args: string[], cwd: string) => run('git', ['-c', 'user.name=CI', '-c', 'user.email=ci@example.com', ...args], { cwd });
    await git(['init', '-q'], origin);
    await git(['add', '.'], origin);
    await git(['commit', '-q', '-m', 'my-shop with its saved calls'], origin);
    const clone = join(work, 'my-shop');
    await git(['clone', '-q', origin, clone], work);
    expect((await readdir(join(clone, 'median-calls'))).length).toBe(5);

    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
    // What a project's CI runs. --offline: npm makes no request at all, so every package comes from the local npm
    // cache by the lockfile's integrity (`npm ci` of this repository put them there).
    await run(npm, ['ci', '--offline', '--ignore-scripts'], { cwd: clone, env, maxBuffer: 64 * 1024 * 1024 });

    const port = await freeTestPort();
    const bin = join(clone, 'node_modules', '.bin', 'median-dev');
    const result = await run(bin, ['test', '--target', `http://127.0.0.1:${port}`, '--junit', 'report.xml', '--', process.execPath, 'server.js'], {
      cwd: clone,
      // No MEDIAN_KEY anywhere: the run makes a throwaway key for the server it starts.
      env: { ...env, PORT: String(port) },
    }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
      throw new Error(`median-dev test exited ${error.code}:\n${error.stdout}\n${error.stderr}`);
    });
    expect(result.stdout).toContain('5 passed');
    const junit = checkJunitShape(await readFile(join(clone, 'report.xml'), 'utf8'));
    expect(junit.problems).toEqual([]);
    expect(junit.counts).toEqual({ tests: 5, failures: 0 });
    // The dev server was stopped: nothing answers on its port any more.
    await expect(fetch(`http://127.0.0.1:${port}/api/median`)).rejects.toThrow();
    // The run committed nothing new (the saved calls had their ignore lists already).
    expect((await git(['status', '--porcelain', 'median-calls'], clone)).stdout).toBe('');
  });
});
