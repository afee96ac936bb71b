import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { syncFix } from '../../../src/median/index.js';
import { spawnCli } from '../../helpers/cli-harness.js';
import { EXAMPLE_TOOLS } from '../../helpers/e2e-world.js';
import { useEmulator, useManifestServer, manifestOf } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { useTempDir } from '../../helpers/e2e-world.js';

const PROD = 'https://acme.example/api/median';
const MATE = 'https://dana-7f3a.loca.lt/api/median';

interface OrgProblem {
  rule: string;
  message: string;
  otherUrl?: string;
  otherOwner?: string;
  fix: string;
}

/** The example route on loopback and the emulator as its organisation; runs the built CLI against both. */
async function useProject() {
  const { emulator, client } = await useEmulator();
  const route = useTeardown(
    await startToolRouteServer({ port: 0, key: emulator.key, apiUrl: emulator.url, tools: createDemoTools({ msPerSecond: 100 }) }),
    (r) => r.close(),
  );
  const dataDir = await useTempDir('median-dev-org-');
  const run = async (args: string[]) => {
    const cli = spawnCli([...args, '--target', new URL(route.url).origin, '--data-dir', dataDir, '--no-env-file', '--median-api', emulator.url], {
      env: { MEDIAN_KEY: emulator.key },
    });
    const code = await cli.exited;
    return { code, stdout: cli.stdout(), stderr: cli.stderr() };
  };
  return { emulator, client, run };
}

describe('manifest and doctor check the organisation-wide rules before any sync', () => {
  it('names clashing with production and a teammate: each with the other endpoint’s URL, class and fix', async () => {
    const project = await useProject();
    await project.emulator.holdEndpoint({ url: PROD, tools: ['orderStatus', 'shipParcel'] });
    await project.emulator.holdEndpoint({ url: MATE, tools: ['lookupCustomer'] });

    const json = await project.run(['manifest', '--json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { wouldSync: boolean; problems: unknown[]; organisation: { problems: OrgProblem[] } };
    expect(report.wouldSync).toBe(false);
    expect(report.problems).toEqual([]);
    expect(report.organisation.problems.map((p) => [p.rule, p.otherUrl, p.otherOwner])).toEqual([
      ['unique-names', PROD, 'production'],
      ['unique-names', MATE, 'dev-tunnel'],
    ]);
    expect(report.organisation.problems[0]?.message).toBe(`The tool name "orderStatus" already comes from ${PROD}. Tool names have to be unique across every endpoint.`);

    const text = await project.run(['manifest']);
    expect(text.stdout).toContain(`${PROD} is production or a preview`);
    expect(text.stdout).toContain(`${MATE} is another dev tunnel (likely a teammate’s)`);

    const doctor = await project.run(['doctor', '--json']);
    const checks = (JSON.parse(doctor.stdout) as { checks: Array<{ check: string; status: string; message: string }> }).checks;
    expect(checks.filter((c) => c.check === 'organisation' && c.status === 'fail').map((c) => c.message)).toEqual([
      report.organisation.problems[0]?.message,
      report.organisation.problems[1]?.message,
    ]);
    expect(checks).toContainEqual(expect.objectContaining({ check: 'production', status: 'fail' }));
  });

  it('the 20-tool limit across endpoints, in the docs’ words', async () => {
    const project = await useProject();
    await project.emulator.holdEndpoint({ url: PROD, tools: Array.from({ length: 14 }, (_, i) => `prodTool${i}`) });
    const json = await project.run(['manifest', '--json']);
    expect(json.code).toBe(1);
    const problems = (JSON.parse(json.stdout) as { organisation: { problems: OrgProblem[] } }).organisation.problems;
    expect(problems).toEqual([
      expect.objectContaining({
        rule: 'tool-limit',
        message: `These endpoints would declare ${14 + EXAMPLE_TOOLS.length} tools together, and the organization limit is 20.`,
      }),
    ]);
    expect(problems[0]?.fix).toContain(`${PROD} (production or a preview): 14`);
  });

  it('the 10-endpoint limit when this project would add an eleventh', async () => {
    const project = await useProject();
    for (let i = 0; i < 10; i++) await project.emulator.holdEndpoint({ url: `https://mate${i}.loca.lt/api/median`, tools: [`mateTool${i}`] });
    const json = await project.run(['manifest', '--json']);
    const problems = (JSON.parse(json.stdout) as { organisation: { problems: OrgProblem[] } }).organisation.problems;
    expect(problems).toEqual([expect.objectContaining({ rule: 'endpoint-limit', message: 'You can connect 10 tool endpoints at once. Remove one before adding another.' })]);
    expect(json.code).toBe(1);
  });

  it('passes when the organisation has room and no name is taken', async () => {
    const project = await useProject();
    await project.emulator.holdEndpoint({ url: PROD, tools: ['shipParcel'] });
    const json = await project.run(['manifest', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ wouldSync: true, organisation: { endpoints: 1, problems: [] } });
  });
});

describe('every sync failure the emulator produces prints the docs’ fix', () => {
  it('endpoints shows each failed sync with its fix', async () => {
    const project = await useProject();
    const routes = await useManifestServer();
    const rows: Array<[string, Parameters<typeof routes.serve>[1]]> = [
      ['/signature', { status: 401, body: { error: { code: 'invalid_signature', message: 'x' } } }],
      ['/missing', { status: 404, body: {} }],
      ['/broken', { status: 500, body: {} }],
      ['/page', { status: 200, body: '<!doctype html><p>hello</p>' }],
      ['/apex', { status: 301, headers: { location: 'https://www.acme.example/api/median' } }],
      ['/reserved', { body: { version: 1, tools: [{ ...manifestOf('x').tools[0]!, name: 'handoff' } as object] } }],
      ['/version', { body: { version: 2, tools: [] } }],
    ];
    for (const [path, answer] of rows) {
      routes.serve(path, answer);
      await project.client.waitForSync((await project.client.connect(routes.url(path))).id, { intervalMs: 10 });
    }
    const endpoints = await project.client.listEndpoints();
    expect(endpoints.every((e) => e.status === 'failed')).toBe(true);
    const listed = await project.run(['endpoints']);
    for (const e of endpoints) {
      const fix = syncFix(e.error);
      expect(fix, e.error ?? '').toBeDefined();
      expect(listed.stdout).toContain(`Sync failed: ${e.error}`);
      expect(listed.stdout).toContain(`→ ${fix}`);
    }
  });
});
