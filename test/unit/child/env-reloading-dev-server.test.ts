import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEnvFileReloadedBy, recogniseEnvReloadingDevServer } from '../../../src/child/index.js';

const SCRIPTS = { dev: 'next dev --turbopack', start: 'next start', web: 'cross-env PORT=4000 next dev', vite: 'vite', both: 'next build && next start' };

describe('recogniseEnvReloadingDevServer', () => {
  const cases: Array<[string[], string | undefined]> = [
    [['next', 'dev'], 'next dev'],
    [['npx', 'next', 'dev', '-p', '4000'], 'next dev'],
    [['npx', 'next'], 'next dev'], // `next` alone is `next dev`
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
    [['npm', 'run', 'vite'], undefined],
    [['npm', 'run', 'missing'], undefined],
    [['npm', 'dev'], undefined], // npm has no `npm dev`
    [['pnpm', 'install'], undefined],
    [['node', 'server.js'], undefined],
    [['nextjs-like', 'dev'], undefined],
    [[], undefined],
  ];
  it.each(cases)('%j → %s', (command, name) => {
    expect(recogniseEnvReloadingDevServer(command, SCRIPTS)?.name).toBe(name);
  });

  it('recognises Next.js saying it reloaded an env file', () => {
    const server = recogniseEnvReloadingDevServer(['next', 'dev'], {})!;
    expect(server.isReloadLine('  Reload env: .env.local')).toBe(true);
    expect(server.isReloadLine(' GET /api/median 200 in 35ms')).toBe(false);
    expect(server.isReloadLine('Reloading the page')).toBe(false);
  });
});

describe('isEnvFileReloadedBy', () => {
  const server = recogniseEnvReloadingDevServer(['next', 'dev'], {})!;
  const cwd = join('/', 'app');
  it.each([
    [join(cwd, '.env.local'), true],
    [join(cwd, '.env'), true],
    [join(cwd, '.env.development.local'), true],
    [join(cwd, '.env.development'), true],
    [join(cwd, '.env.production'), false],
    [join(cwd, 'config', '.env.local'), false],
    [join(cwd, 'median.env'), false],
  ])('%s → %s', (file, expected) => {
    expect(isEnvFileReloadedBy(server, file, cwd)).toBe(expected);
  });
});
