import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { runCliInProcess, spawnCli } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';

describe('the demo, from a second terminal', () => {
  it('writes its throwaway key to its own env file (0600) and prints a one-liner that works from another terminal', async () => {
    const dataDir = await useTempDir('median-dev-demo-2nd-');
    const demo = spawnCli(['demo', '--no-tui', '--data-dir', dataDir]);
    await vi.waitFor(() => expect(demo.stdout()).toContain('From another terminal'), { timeout: 15_000, interval: 50 });
    const line = demo.stdout().split('\n').find((l) => l.includes('From another terminal'))!;
    const envFile = join(dataDir, 'demo.env');
    expect(line).toContain(`calls --data-dir ${dataDir} --env ${envFile}`);
    if (process.platform !== 'win32') expect((await stat(envFile)).mode & 0o777).toBe(0o600);
    expect(await readFile(envFile, 'utf8')).toMatch(/^MEDIAN_KEY=median_key_\w{32,}$/m);

    // The one-liner's flags, as a second terminal (no MEDIAN_KEY in its environment) runs them.
    const flags = ['--data-dir', dataDir, '--env', envFile];
    await vi.waitFor(() => expect(demo.stdout()).toContain('synced'), { timeout: 15_000, interval: 50 });
    const manifest = await runCliInProcess(['manifest', '--json', ...flags], { env: {} });
    expect(manifest.code, manifest.stderr).toBe(0);
    const calls = await runCliInProcess(['call', 'orderStatus', '--input', '{"orderNumber":"A1001"}', '--json', ...flags], { env: {} });
    expect(calls.code, calls.stderr).toBe(0);
    const { toolCallId } = JSON.parse(calls.stdout) as { toolCallId: string };
    // The daemon records a call right after its answer went out: a person typing the next command is
    // slower than that, a test is not.
    await vi.waitFor(async () => expect((await runCliInProcess(['show', toolCallId, '--json', ...flags], { env: {} })).code).toBe(0), { timeout: 5_000, interval: 50 });
    const replay = await runCliInProcess(['replay', toolCallId, '--json', ...flags], { env: {} });
    expect(replay.code, replay.stderr).toBe(0);
    expect((JSON.parse(replay.stdout) as CallRecord).signature).toBe('valid');
    expect(await demo.stop('SIGINT')).toBe(0);
    expect(demo.stderr()).toContain(`calls --data-dir ${dataDir} --env ${envFile}`);
  }, 40_000);
});
