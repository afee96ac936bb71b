import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { useEmulator } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';

async function useWorld() {
  const test = await useEmulator();
  const route = useTeardown(await startToolRouteServer({ port: 0, key: test.emulator.key, apiUrl: test.emulator.url, tools: createDemoTools() }), (r) => r.close());
  const endpoint = await test.client.waitForSync((await test.client.connect(route.url)).id, { intervalMs: 10 });
  const dataDir = await useTempDir('median-dev-why-');
  const run = (...argv: string[]) =>
    runCliInProcess([...argv, '--target', route.origin, '--median-api', test.emulator.url, '--data-dir', dataDir, '--no-env-file'], { env: { MEDIAN_KEY: test.emulator.key } });
  return { ...test, endpoint, run };
}

describe('median-dev why <tool> and doctor’s tool-use section', () => {
  it('walks the five checks; a switched-off tool fails with the docs’ fix', async () => {
    const world = await useWorld();
    const fine = await world.run('why', 'orderStatus', '--json');
    expect(fine.code, fine.stderr).toBe(0);
    expect(JSON.parse(fine.stdout).checks.map((c: { check: string; status: string }) => `${c.check}:${c.status}`)).toEqual([
      'synced:ok',
      'switched-on:ok',
      'conversation-after-deploy:ok',
      'description:ok',
      'calls-left:ok',
    ]);
    await world.client.setToolEnabled(world.endpoint.id, 'refundOrder', false);
    const off = await world.run('why', 'refundOrder');
    expect(off.code).toBe(1);
    expect(off.stdout).toContain('✗ The tool is on: refundOrder is switched off.');
    expect(off.stdout).toContain('median tools enable refundOrder');
    const unknown = await world.run('why', 'noSuchTool');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain("✗ The endpoint synced: No endpoint serves noSuchTool, and the route's manifest does not have it");
  });

  it('doctor names each tool that fails a check, as a warning', async () => {
    const world = await useWorld();
    await world.client.setToolEnabled(world.endpoint.id, 'chargeCard', false);
    const doctor = await world.run('doctor', '--json');
    const toolUse = JSON.parse(doctor.stdout).checks.filter((c: { check: string }) => c.check === 'tool-use');
    expect(toolUse).toEqual([expect.objectContaining({ status: 'warn', message: 'chargeCard (switched-on): chargeCard is switched off.' })]);
  });
});
