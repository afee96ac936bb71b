import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../../src/median/index.js';
import { runCliInProcess, spawnCli } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { connectToDaemon } from '../../../src/control/index.js';
import { pasteCommand } from '../../helpers/paste-command.js';

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

  it("names one source for its key: the daemon's header and doctor from a second terminal both say demo.env", async () => {
    const dataDir = await useTempDir('median-dev-demo-key-');
    const demo = spawnCli(['demo', '--json', '--no-tui', '--inspector-port', '0', '--data-dir', dataDir], { cwd: dataDir });
    await demo.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced', 30_000);
    const control = await connectToDaemon(dataDir);
    const { keySource } = control.snapshot;
    await control.close();
    expect(keySource).toBe('demo.env');
    const doctor = await runCliInProcess(['doctor', '--json', '--data-dir', dataDir, '--env', join(dataDir, 'demo.env')], { env: {}, cwd: dataDir });
    const checks = (JSON.parse(doctor.stdout) as { checks: Array<{ check: string; message: string }> }).checks;
    expect(checks.find((c) => c.check === 'key')?.message).toContain(`, from ${keySource})`);
  }, 40_000);

  it("prints the inspector's `inspect` hint as a command that works pasted into another terminal", async () => {
    const dataDir = await useTempDir('median-dev-demo-hint-');
    const demo = spawnCli(['demo', '--no-tui', '--inspector-port', '0', '--data-dir', dataDir], { cwd: dataDir });
    await vi.waitFor(() => expect(demo.stdout()).toContain('makes another'), { timeout: 15_000, interval: 50 });
    const line = demo.stdout().split('\n').find((l) => l.includes('makes another'))!;
    const hint = /`([^`]+ inspect[^`]*)`/.exec(line)?.[1];
    // How this demo was run (not a bare median-dev, which a clone has no bin for) and its own data dir and env file.
    expect(hint).toMatch(/^node \S+ inspect --data-dir /);
    expect(hint).toContain(`--env ${join(dataDir, 'demo.env')}`);
    // As printed; BROWSER=false stands for a terminal whose browser cannot start, so the link is printed.
    const pasted = await pasteCommand(`BROWSER=false ${hint!}`, dataDir);
    expect(pasted.code, pasted.stderr).toBe(0);
    expect(pasted.stdout).toContain('/session?token=');
    expect(await demo.stop('SIGINT')).toBe(0);
  }, 40_000);
});
