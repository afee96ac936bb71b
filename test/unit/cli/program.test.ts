import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-harness.js';

const COMMANDS = ['start', 'calls', 'show', 'replay', 'call', 'manifest', 'endpoints', 'sync', 'restart', 'watch', 'doctor', 'export', 'emulate', 'demo'];

describe('median-dev --help', () => {
  it('lists every command of SPEC §2', async () => {
    const run = await runCliInProcess(['--help']);
    expect(run.code).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
  });

  it.each([
    ['start', ['--target', '--route', '--env', '--port', '--tunnel', '--tunnel-host', '--subdomain', '--public-url', '--median-api', '--env-file', '--no-env-file', '--watch', '--no-auto-fix', '--no-tui', '--json', '--data-dir']],
    ['calls', ['--json', '--tool', '--limit', '--verdict', '--filter', '--since', '--until', '--follow', '--target', '--route', '--data-dir']],
    ['show', ['--json', '--curl', '--diff']],
    ['replay', ['--new-id', '--input', '--yes', '--json', '--at-offset']],
    ['call', ['--input', '--json', '--risk']],
    ['manifest', ['--json']],
    ['endpoints', ['--json']],
    ['emulate', ['--port']],
    ['export', ['--har']],
  ])('%s --help lists its flags', async (command, flags) => {
    const run = await runCliInProcess([command, '--help']);
    expect(run.code).toBe(0);
    for (const flag of flags) expect(run.stdout).toContain(flag);
  });

  it('endpoints prune --help lists --yes', async () => {
    const run = await runCliInProcess(['endpoints', 'prune', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--yes');
  });
});

describe('usage errors exit 2 and name the closest valid word', () => {
  it.each([
    [['cals'], 'calls'],
    [['replya', 'x'], 'replay'],
    [['calls', '--limt', '3'], '--limit'],
    [['start', '--subdomian', 'x'], '--subdomain'],
  ])('%j suggests %s', async (argv, suggestion) => {
    const run = await runCliInProcess(argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(suggestion);
  });

  it.each([
    [['start', '--tunnel', 'frp']],
    [['calls', '--verdict', 'great']],
    [['show']],
    [['start', '--port', 'abc', '--no-tui', '--data-dir', '/nonexistent-median-dev-test']],
    [['calls', '--limit', '0', '--data-dir', '/nonexistent-median-dev-test']],
    [['calls', '--target', 'localhost:3000', '--data-dir', '/nonexistent-median-dev-test']],
  ])('%j exits 2', async (argv) => {
    const run = await runCliInProcess(argv);
    expect(run.code).toBe(2);
  });

  it('--version prints the version', async () => {
    const run = await runCliInProcess(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
