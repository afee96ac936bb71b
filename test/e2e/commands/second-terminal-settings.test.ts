import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';

describe('a second terminal in the data dir of a running daemon', () => {
  it('uses the daemon\'s env file, Median API, target and route without being told', async () => {
    const world = await useE2eWorld({ envFileText: null });
    // The key lives only in a file of another name (`emulate`'s emulator.env), given to start with --env.
    const keyFile = join(world.dataDir, 'emulator.env');
    await mkdir(world.dataDir, { recursive: true, mode: 0o700 });
    await writeFile(keyFile, `MEDIAN_KEY=${world.emulator.key}\nMEDIAN_API_URL=${world.emulator.url}\n`, { mode: 0o600 });
    const daemon = world.start({ envFileFlag: false, args: ['--env', keyFile], env: { MEDIAN_API_URL: undefined } });
    await waitForEventAfter(daemon, 0, 'endpoint', { action: 'synced' }, 30_000);

    // The second terminal: the project folder, no flags, no key in its environment.
    const here = { cwd: world.projectDir, env: {} };
    const endpoints = await runCliInProcess(['endpoints', '--json'], here);
    expect(endpoints.code, endpoints.stderr).toBe(0);
    expect((JSON.parse(endpoints.stdout) as Array<{ isCurrent: boolean }>).some((e) => e.isCurrent)).toBe(true);
    const sync = await runCliInProcess(['sync', '--json'], here);
    expect(sync.code, sync.stderr).toBe(0);
    const call = await runCliInProcess(['call', 'orderStatus', '--input', '{"orderNumber":"A1001"}', '--json'], here);
    expect(call.code, call.stderr).toBe(0);
    const { toolCallId } = JSON.parse(call.stdout) as { toolCallId: string };
    await vi.waitFor(async () => expect((await runCliInProcess(['show', toolCallId, '--json'], here)).code).toBe(0), { timeout: 5_000, interval: 50 });
    const curl = await runCliInProcess(['show', toolCallId, '--curl'], here);
    expect(curl.code, curl.stderr).toBe(0);
    expect(curl.stdout).toContain('median-signature: t=');
    const doctor = await runCliInProcess(['doctor', '--json'], here);
    const checks = (JSON.parse(doctor.stdout) as { checks: Array<{ check: string; status: string }> }).checks;
    expect(checks.find((c) => c.check === 'key')?.status).toBe('ok');

    // Told otherwise, the flag wins: --no-env-file has no key.
    const told = await runCliInProcess(['endpoints', '--json', '--no-env-file'], here);
    expect(told.code).toBe(1);
    expect(told.stdout + told.stderr).toContain('missing_key');
    expect(await daemon.stop('SIGINT')).toBe(0);
  }, 60_000);
});
