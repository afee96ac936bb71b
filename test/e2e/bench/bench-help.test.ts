import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST_BENCH = fileURLToPath(new URL('../../../dist/bench/', import.meta.url));
// Every bench a user or an engineer starts by name (package.json's bench scripts); the soak has its own parser.
const BENCHES = ['run', 'tunnel', 'proxy-ratio', 'heals', 'idle', 'show', 'lookups-idle-startup', 'saved-calls', 'inspector', 'soak-floors', 'daemon-parts'];

function runBench(name: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, [`${DIST_BENCH}${name}.js`, ...args], { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH } });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

// `--help` used to start the whole run (and rewrite BENCHMARKS.md): each bench must stop at once instead.
describe('the benches answer --help and refuse unknown flags without running', () => {
  it.each(BENCHES)('%s', (name) => {
    const help = runBench(name, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain(`dist/bench/${name}.js`);
    const bad = runBench(name, ['--no-such-flag']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--no-such-flag');
  });
});

describe('daemon-parts refuses bad values before it starts anything', () => {
  it.each([
    [['--rounds', 'x'], '--rounds'],
    [['--variant', 'stock='], 'stock'],
    [['--variant-bin', 'old=/nowhere/median-dev.js'], '/nowhere/median-dev.js'],
    [['--floors', 'proxy,nosuch'], 'nosuch'],
  ])('%j', (args, named) => {
    const bad = runBench('daemon-parts', args);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(named);
    expect(bad.stderr).toContain('Usage:');
  });
});
