import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEnvFileReloadedBy, recogniseDevServer, type ProjectPackage } from '../../../src/child/index.js';

const SCRIPTS = {
  dev: 'next dev --turbopack',
  start: 'next start',
  web: 'cross-env PORT=4000 next dev',
  vite: 'vite',
  both: 'next build && next start',
  nuxt: 'nuxt dev',
  kit: 'vite dev --port 5173',
  astro: 'astro dev',
  api: 'node --watch --env-file-if-exists=.env src/server.js',
  mon: 'nodemon server.js',
  hono: 'tsx watch src/index.ts',
};
const PLAIN: ProjectPackage = { scripts: SCRIPTS, dependencies: new Set(['react']) };
const KIT: ProjectPackage = { scripts: SCRIPTS, dependencies: new Set(['@sveltejs/kit', 'vite']) };

describe('recogniseDevServer', () => {
  const cases: Array<[string[], string | undefined]> = [
    [['next', 'dev'], 'next dev'],
    [['npx', 'next', 'dev', '-p', '4000'], 'next dev'],
    [['npx', 'next'], 'next dev'], // `next` alone is `next dev`
    [['npx', 'next', 'dev', '--webpack'], 'next dev'],
    [['node', '/app/node_modules/next/dist/bin/next', 'dev'], 'next dev'],
    [['C:\\app\\node_modules\\.bin\\next.cmd', 'dev'], 'next dev'],
    [['npx next dev'], 'next dev'], // one shell word
    [['pnpm', 'exec', 'next', 'dev'], 'next dev'],
    [['npm', 'run', 'dev'], 'next dev'],
    [['npm', 'run-script', 'web'], 'next dev'],
    [['yarn', 'dev'], 'next dev'],
    [['pnpm', 'dev'], 'next dev'],
    [['bun', 'run', 'dev'], 'next dev'],
    [['npm', 'start'], undefined], // next start serves a build: it reloads nothing
    [['next', 'start'], undefined],
    [['next', 'build'], undefined],
    [['npm', 'run', 'both'], undefined],
    [['npm', 'run', 'vite'], undefined], // plain Vite: no server routes that read env files
    [['npm', 'run', 'missing'], undefined],
    [['npm', 'dev'], undefined], // npm has no `npm dev`
    [['pnpm', 'install'], undefined],
    [['node', 'server.js'], undefined],
    [['nextjs-like', 'dev'], undefined],
    [['npx', 'nuxt', 'dev'], 'nuxt dev'],
    [['npx', 'nuxi', 'dev', '--port', '3001'], 'nuxt dev'],
    [['npm', 'run', 'nuxt'], 'nuxt dev'],
    [['nuxt', 'build'], undefined],
    [['npx', 'astro', 'dev'], 'astro dev'],
    [['npm', 'run', 'astro'], 'astro dev'],
    [['node', '--watch', 'server.js'], 'node --watch'],
    [['node', '--watch-path=src', 'server.js'], 'node --watch'],
    [['npm', 'run', 'api'], 'node --watch'],
    [['node', 'server.js', '--watch'], undefined], // the script's own argument, not node's
    [['npx', 'nodemon', 'server.js'], 'nodemon'],
    [['npm', 'run', 'mon'], 'nodemon'],
    [['npx', 'tsx', 'watch', 'src/index.ts'], 'tsx watch'],
    [['npm', 'run', 'hono'], 'tsx watch'],
    [['npx', 'tsx', 'src/index.ts'], undefined], // no watch: nothing restarts it but us
    [[], undefined],
  ];
  it.each(cases)('%j → %s', (command, name) => {
    expect(recogniseDevServer(command, PLAIN)?.name).toBe(name);
  });

  it.each([
    [['npx', 'vite', 'dev'], 'vite dev (SvelteKit)'],
    [['npx', 'vite'], 'vite dev (SvelteKit)'],
    [['npm', 'run', 'kit'], 'vite dev (SvelteKit)'],
    [['npx', 'vite', 'build'], undefined],
  ])('with @sveltejs/kit in package.json: %j → %s', (command, name) => {
    expect(recogniseDevServer(command, KIT)?.name).toBe(name);
  });

  it('knows which reload, and from which line each says it did (the real lines)', () => {
    const next = recogniseDevServer(['next', 'dev'], PLAIN)!.reloads!;
    expect(next.isReloadLine('  Reload env: .env.local')).toBe(true);
    expect(next.isReloadLine(' GET /api/median 200 in 35ms')).toBe(false);
    expect(next.isReloadLine('Reloading the page')).toBe(false);
    const kit = recogniseDevServer(['vite', 'dev'], KIT)!.reloads!;
    expect(kit.isReloadLine('12:15:26 PM [vite] server restarted.')).toBe(true);
    expect(kit.isReloadLine('12:15:26 PM [vite] .env.local changed, restarting server...')).toBe(false);
    expect(kit.readWith).toBe('$env/dynamic/private');
    for (const command of [['nuxt', 'dev'], ['node', '--watch', 'a.js'], ['nodemon', 'a.js'], ['tsx', 'watch', 'a.ts'], ['astro', 'dev']]) {
      const profile = recogniseDevServer(command, PLAIN)!;
      expect(profile.reloads).toBeUndefined();
      expect(profile.restartReason).toBeTruthy();
    }
  });
});

describe('isEnvFileReloadedBy', () => {
  const next = recogniseDevServer(['next', 'dev'], PLAIN)!.reloads!;
  const cwd = join('/', 'app');
  it.each([
    [join(cwd, '.env.local'), true],
    [join(cwd, '.env'), true],
    [join(cwd, '.env.development.local'), true],
    [join(cwd, '.env.development'), true],
    [join(cwd, '.env.production'), false],
    [join(cwd, 'config', '.env.local'), false],
    [join(cwd, 'median.env'), false],
  ])('next dev: %s → %s', (file, expected) => {
    expect(isEnvFileReloadedBy(next, file, cwd)).toBe(expected);
  });
});
