import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideUrlChangeMode } from '../../../src/daemon/url-change-mode.js';
import { useTeardown } from '../../helpers/use-teardown.js';

async function useProject(scripts: Record<string, string> | null): Promise<string> {
  const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-urlmode-')), (d) => rm(d, { recursive: true, force: true }));
  if (scripts) await writeFile(join(dir, 'package.json'), JSON.stringify({ scripts }));
  return dir;
}

describe('decideUrlChangeMode', () => {
  it('auto: npm run dev running next dev, env file .env.local beside package.json → left running, said once', async () => {
    const cwd = await useProject({ dev: 'next dev' });
    const decision = await decideUrlChangeMode({ policy: 'auto', command: ['npm', 'run', 'dev'], cwd, envFile: join(cwd, '.env.local') });
    expect(decision.mode).toMatchObject({ kind: 'reloads', envFile: join(cwd, '.env.local'), server: { name: 'next dev' } });
    expect(decision.note).toContain('next dev recognised: it reloads .env.local by itself (in the same process)');
  });

  it('auto: any other dev server is restarted, without a note', async () => {
    const cwd = await useProject({ dev: 'vite' });
    expect(await decideUrlChangeMode({ policy: 'auto', command: ['npm', 'run', 'dev'], cwd, envFile: join(cwd, '.env.local') })).toEqual({ mode: { kind: 'restart' } });
  });

  it('auto: no package.json (or a broken one) leaves the command alone to decide', async () => {
    const cwd = await useProject(null);
    expect((await decideUrlChangeMode({ policy: 'auto', command: ['npm', 'run', 'dev'], cwd, envFile: join(cwd, '.env.local') })).mode.kind).toBe('restart');
    await writeFile(join(cwd, 'package.json'), '{ not json');
    expect((await decideUrlChangeMode({ policy: 'auto', command: ['next', 'dev'], cwd, envFile: join(cwd, '.env.local') })).mode.kind).toBe('reloads');
  });

  it('auto: next dev with an env file it does not read, or none, is restarted, and the note says why', async () => {
    const cwd = await useProject({ dev: 'next dev' });
    const elsewhere = await decideUrlChangeMode({ policy: 'auto', command: ['npm', 'run', 'dev'], cwd, envFile: join(cwd, 'config', '.env.local') });
    expect(elsewhere.mode.kind).toBe('restart');
    expect(elsewhere.note).toContain('is not one of them');
    const none = await decideUrlChangeMode({ policy: 'auto', command: ['npm', 'run', 'dev'], cwd, envFile: null });
    expect(none.mode.kind).toBe('restart');
    expect(none.note).toContain('--no-env-file');
  });

  it('auto: a file next dev reads before ours that sets MEDIAN_TOOLS_URL would win every reload: restarted, and the note names it', async () => {
    const cwd = await useProject({ dev: 'next dev' });
    await writeFile(join(cwd, '.env.development.local'), 'MEDIAN_TOOLS_URL=https://stale.example/api/median\n');
    const decision = await decideUrlChangeMode({ policy: 'auto', command: ['npm', 'run', 'dev'], cwd, envFile: join(cwd, '.env.local') });
    expect(decision.mode.kind).toBe('restart');
    expect(decision.note).toContain('.env.development.local also sets MEDIAN_TOOLS_URL');
    // A file read after ours (.env) does not matter: ours wins there.
    const after = await useProject({ dev: 'next dev' });
    await writeFile(join(after, '.env'), 'MEDIAN_TOOLS_URL=https://stale.example/api/median\n');
    expect((await decideUrlChangeMode({ policy: 'auto', command: ['npm', 'run', 'dev'], cwd: after, envFile: join(after, '.env.local') })).mode.kind).toBe('reloads');
  });

  it('auto: SvelteKit reloads .env.local itself (left running; the note says to read it with $env/dynamic/private)', async () => {
    const cwd = await useProject({ dev: 'vite dev' });
    await writeFile(join(cwd, 'package.json'), JSON.stringify({ scripts: { dev: 'vite dev' }, devDependencies: { '@sveltejs/kit': '2' } }));
    const decision = await decideUrlChangeMode({ policy: 'auto', command: ['npm', 'run', 'dev'], cwd, envFile: join(cwd, '.env.local') });
    expect(decision.mode).toMatchObject({ kind: 'reloads', server: { name: 'vite dev (SvelteKit)' } });
    expect(decision.note).toContain('$env/dynamic/private');
  });

  it.each([
    [['node', '--watch', 'server.js'], 'node --watch'],
    [['npx', 'nodemon', 'server.js'], 'nodemon'],
    [['npx', 'tsx', 'watch', 'src/index.ts'], 'tsx watch'],
    [['npx', 'astro', 'dev'], 'astro dev'],
    [['npx', 'nuxt', 'dev'], 'nuxt dev'],
  ])('auto: %j is recognised and restarted, and the note says why', async (command, name) => {
    const cwd = await useProject({});
    const decision = await decideUrlChangeMode({ policy: 'auto', command, cwd, envFile: join(cwd, '.env.local') });
    expect(decision.mode.kind).toBe('restart');
    expect(decision.note).toMatch(new RegExp(`^${name} recognised: .* median-dev restarts it when the tunnel URL changes`));
  });

  it('always restarts even next dev; never keeps every dev server running and says so', async () => {
    const cwd = await useProject({ dev: 'next dev' });
    const envFile = join(cwd, '.env.local');
    expect(await decideUrlChangeMode({ policy: 'always', command: ['npm', 'run', 'dev'], cwd, envFile })).toEqual({ mode: { kind: 'restart' } });
    const never = await decideUrlChangeMode({ policy: 'never', command: ['node', 'server.js'], cwd, envFile });
    expect(never.mode.kind).toBe('keep');
    expect(never.note).toContain('--restart-on-url-change never');
  });
});
