import { describe, expect, it } from 'vitest';
import { createDemoTools, startToolRouteServer } from '../../../examples/tools-route/index.js';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const KEY = `median_key_${'D1agn0st1c'.repeat(4)}`;

async function useRoute(diagnostics?: () => unknown) {
  const route = useTeardown(await startToolRouteServer({ port: 0, key: KEY, tools: createDemoTools(), ...(diagnostics ? { diagnostics } : {}) }), (r) => r.close());
  const dataDir = await useTempDir('median-dev-diag-');
  return (...args: string[]) => runCliInProcess(['diagnostics', ...args, '--target', route.origin, '--data-dir', dataDir, '--no-env-file'], { env: { MEDIAN_KEY: KEY } });
}

describe('median-dev diagnostics', () => {
  it('keeps the first 2,000 characters, as Median does, and says it cut the rest', async () => {
    const run = await useRoute(() => ({ log: 'x'.repeat(3_000) }));
    const json = await run('--json');
    expect(json.code, json.stderr).toBe(0);
    const answer = JSON.parse(json.stdout);
    expect(answer).toMatchObject({ status: 200, isCut: true, verdict: { kind: 'answered' } });
    expect(answer.kept).toHaveLength(2_000);
    const text = await run();
    expect(text.stdout).toMatch(/^Diagnostics: the route answered in \d+ ms; Median keeps the first 2,000 characters of it\./);
    expect(text.stdout).toContain('Median keeps only the first 2,000');
  });

  it('diagnostics_unsupported is no fault', async () => {
    const run = await useRoute();
    const text = await run();
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('the route collects none (diagnostics_unsupported, not a fault)');
  });

  it('a route that throws gives Median nothing: exit 1', async () => {
    const run = await useRoute(() => {
      throw new Error('disk on fire');
    });
    const text = await run();
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('Median would get nothing usable');
    expect(text.stderr).toContain('[tool_call_failed]');
  });
});
