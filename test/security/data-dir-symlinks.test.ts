import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { useHttpServer } from '../helpers/use-http-server.js';

/**
 * Issue 18 item 10: a symlink planted in `calls/` was followed: records
 * were appended to (and chmod-ed) a file outside the data dir, so a header
 * `x-evil: $(touch …)` ended up in a shell rc file. The attacker plants the
 * link before a real daemon writes; nothing outside the data dir may change,
 * and the daemon says so.
 */
async function runOneCall(dataDir: string, cwd: string) {
  const target = await useHttpServer((_req, res) => res.end('{"result":"ok"}'));
  const cli = spawnCli(['start', '--json', '--no-tui', '--no-inspector', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--no-env-file', '--target', target.url, '--data-dir', dataDir], { cwd });
  const proxy = (await cli.waitForEvent((e) => e.event === 'proxy')).url as string;
  await cli.waitForEvent((e) => e.event === 'tools-url');
  const answer = await fetch(`${proxy}/api/median`, { method: 'POST', headers: { 'x-evil': `$(touch ${join(cwd, 'pwned')})`, 'content-type': 'application/json' }, body: '{}' });
  expect(answer.status).toBe(200);
  await cli.waitForEvent((e) => e.event === 'call');
  await cli.stop();
  return cli;
}

/** Said on the event stream or the log on stderr. */
const saysLink = (cli: { stdout(): string; stderr(): string }) => `${cli.stdout()}${cli.stderr()}`.includes('symbolic link');

describe('item 10: symlinks planted in the data dir', () => {
  it('a segment that is a link to a shell rc file is neither written nor chmod-ed; the record goes into a real segment', async () => {
    const dir = await useTempDir('median-dev-link-');
    const rc = join(dir, 'home-bashrc');
    await writeFile(rc, '# the user rc\n', { mode: 0o644 });
    const calls = join(dir, '.median-dev', 'calls');
    await mkdir(calls, { recursive: true, mode: 0o700 });
    await symlink(rc, join(calls, 'calls-000001.jsonl'));

    const cli = await runOneCall(join(dir, '.median-dev'), dir);

    expect(await readFile(rc, 'utf8')).toBe('# the user rc\n');
    expect((await stat(rc)).mode & 0o777).toBe(0o644);
    const segments = (await readdir(calls)).filter((name) => name !== 'calls-000001.jsonl' && name.endsWith('.jsonl'));
    expect(segments).toHaveLength(1);
    expect(await readFile(join(calls, segments[0]!), 'utf8')).toContain('x-evil');
    expect(saysLink(cli)).toBe(true);
  }, 30_000);

  it('a call index that is a link to a shell rc file is never written through; show still finds the call', async () => {
    const dir = await useTempDir('median-dev-link-');
    const rc = join(dir, 'home-bashrc');
    await writeFile(rc, '# the user rc\n', { mode: 0o644 });
    const calls = join(dir, '.median-dev', 'calls');
    await mkdir(calls, { recursive: true, mode: 0o700 });
    await symlink(rc, join(calls, 'calls-000001.idx'));

    await runOneCall(join(dir, '.median-dev'), dir);

    expect(await readFile(rc, 'utf8')).toBe('# the user rc\n');
    expect((await stat(rc)).mode & 0o777).toBe(0o644);
    const [segment] = (await readdir(calls)).filter((name) => name.endsWith('.jsonl'));
    const { id } = JSON.parse((await readFile(join(calls, segment!), 'utf8')).trim()) as { id: string };
    const show = spawnCli(['show', id, '--json', '--no-env-file', '--data-dir', join(dir, '.median-dev')], { cwd: dir });
    expect(await show.exited).toBe(0);
    expect(show.stdout()).toContain('x-evil');
    expect(await readFile(rc, 'utf8')).toBe('# the user rc\n');
  }, 30_000);

  it('a calls folder that is a link to another folder: nothing is written or chmod-ed there, and start says so', async () => {
    const dir = await useTempDir('median-dev-link-');
    const elsewhere = join(dir, 'elsewhere');
    await mkdir(elsewhere, { mode: 0o755 });
    await mkdir(join(dir, '.median-dev'), { mode: 0o700 });
    await symlink(elsewhere, join(dir, '.median-dev', 'calls'));

    const cli = await runOneCall(join(dir, '.median-dev'), dir);

    expect(await readdir(elsewhere)).toEqual([]);
    expect((await stat(elsewhere)).mode & 0o777).toBe(0o755);
    expect(saysLink(cli)).toBe(true);
  }, 30_000);
});
