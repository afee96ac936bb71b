import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { updateProjectState } from '../../../src/config/index.js';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { manifestOf, useEmulator, useManifestServer } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';

interface Check {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  fix?: string;
}

async function useProject() {
  const { emulator, client } = await useEmulator();
  const routes = await useManifestServer();
  routes.serve('/api/median', { body: manifestOf('orderStatus') });
  const toolsUrl = routes.url('/api/median');
  const endpoint = await client.waitForSync((await client.connect(toolsUrl)).id);
  const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-doctor-')), (d) => rm(d, { recursive: true, force: true }));
  const dataDir = join(dir, '.median-dev');
  await updateProjectState(dataDir, { endpointId: endpoint.id, toolsUrl, tunnelUrls: [toolsUrl], target: routes.origin, route: '/api/median' });
  const envFile = join(dir, '.env.local');
  await writeFile(envFile, `MEDIAN_KEY=${emulator.key}\nMEDIAN_TOOLS_URL=${toolsUrl}\n`);
  const doctor = async (env: Record<string, string> = {}) => {
    const result = await runCliInProcess(['doctor', '--json', '--data-dir', dataDir, '--env-file', envFile, '--median-api', emulator.url], { env });
    return { code: result.code, body: JSON.parse(result.stdout) as { ok: boolean; checks: Check[] } };
  };
  return { emulator, client, routes, endpoint, doctor, envFile };
}

const statusOf = (checks: Check[], name: string) => checks.find((c) => c.check === name)?.status;

describe('doctor', () => {
  it('finds nothing to fix on a healthy project (exit 0)', async () => {
    const project = await useProject();
    const { code, body } = await project.doctor();
    expect(code).toBe(0);
    expect(body.ok).toBe(true);
    expect(statusOf(body.checks, 'key')).toBe('ok');
    expect(statusOf(body.checks, 'env-file')).toBe('ok');
    expect(statusOf(body.checks, 'route')).toBe('ok');
    expect(statusOf(body.checks, 'endpoint')).toBe('ok');
    // a local tools URL works with the emulator but not with Median's cloud
    expect(statusOf(body.checks, 'tools-url')).toBe('warn');
  });

  it('a malformed key fails with the docs’ message, exit 1', async () => {
    const project = await useProject();
    const { code, body } = await project.doctor({ MEDIAN_KEY: 'sk_live_abc' });
    expect(code).toBe(1);
    expect(body.checks.find((c) => c.check === 'key')).toMatchObject({ status: 'fail' });
  });

  it('a route that breaks a sync rule and a failed endpoint are failures with fixes', async () => {
    const project = await useProject();
    project.routes.serve('/api/median', { body: { version: 2, tools: [] } });
    await project.client.sync(project.endpoint.url);
    const { code, body } = await project.doctor();
    expect(code).toBe(1);
    expect(body.checks.find((c) => c.check === 'route')).toMatchObject({ status: 'fail' });
    expect(body.checks.find((c) => c.check === 'endpoint')).toMatchObject({ status: 'fail' });
    expect(body.checks.filter((c) => c.status === 'fail').every((c) => typeof c.fix === 'string')).toBe(true);
  });

  it('an env file without MEDIAN_TOOLS_URL is not ticked: a warning that start writes it', async () => {
    const { emulator } = await useEmulator();
    const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-doctor-')), (d) => rm(d, { recursive: true, force: true }));
    const envFile = join(dir, '.env.local');
    await writeFile(envFile, `MEDIAN_KEY=${emulator.key}\n`);
    const result = await runCliInProcess(['doctor', '--json', '--data-dir', join(dir, '.median-dev'), '--env-file', envFile, '--median-api', emulator.url], { cwd: dir });
    const envCheck = (JSON.parse(result.stdout) as { checks: Array<Check & { message: string }> }).checks.find((c) => c.check === 'env-file');
    expect(envCheck).toMatchObject({ status: 'warn', fix: expect.stringMatching(/` *[^`]* start[ `]/) });
    expect(envCheck?.message).not.toContain('(unset)');
  });
});
