import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { updateProjectState } from '../../../src/config/index.js';
import { createChildRestartPolicy } from '../../../src/daemon/child-restart-policy.js';
import { createEnvVars } from '../../../src/daemon/env-vars.js';
import type { DaemonFact, NewDaemonEvent } from '../../../src/events/index.js';
import { findFreePort } from '../../../src/shared/free-port.js';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { KEY } from './dispatch-harness.js';

const WAIT = { timeout: 10_000 };
const A = 'https://first.loca.lt/api/median';
const B = 'https://second.loca.lt/api/median';

/**
 * A real dev server: prints the MEDIAN_TOOLS_URL and MEDIAN_KEY it got, and
 * answers on PORT after DELAY_MS (a dev server compiling), or exits at once with EXIT.
 */
const DEV_SERVER = `
  console.log('url=' + process.env.MEDIAN_TOOLS_URL + ' key=' + (process.env.MEDIAN_KEY ? 'set' : 'none'));
  if (process.env.EXIT) process.exit(Number(process.env.EXIT));
  setTimeout(() => require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1'), Number(process.env.DELAY_MS));
`;

async function usePolicy(env: Record<string, string> = {}) {
  const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-childpolicy-')), (d) => rm(d, { recursive: true, force: true }));
  const port = await findFreePort();
  const abort = new AbortController();
  useTeardown(abort, (a) => a.abort());
  const events: NewDaemonEvent[] = [];
  const facts: DaemonFact[] = [];
  const policy = useTeardown(
    createChildRestartPolicy({
      config: { cwd: dir, target: `http://127.0.0.1:${port}`, route: '/api/median', dataDir: join(dir, 'data'), keySource: 'env-file' },
      command: [process.execPath, '-e', DEV_SERVER],
      daemonPid: process.pid,
      baseEnv: { PATH: process.env.PATH, PORT: String(port), DELAY_MS: '0', ...env },
      vars: createEnvVars({}),
      key: () => KEY,
      emit: (e) => events.push(e),
      report: (f) => facts.push(f),
      logger: createRecordingLogger(),
      signal: abort.signal,
      timing: { routeReadyTimeoutMs: 8_000, childStopGraceMs: 1_000 },
    }),
    (p) => p.close(),
  );
  const output = () => events.flatMap((e) => (e.event === 'output' ? [e.line] : []));
  const starts = () => events.filter((e) => e.event === 'child' && e.state === 'starting').length;
  return { policy, events, facts, output, starts, dir, abort };
}

describe('the child restart policy', () => {
  it('restarts the dev server for a new URL only, passing the URL and the env-file key', async () => {
    const { policy, output, starts } = await usePolicy();
    await policy.restartFor(A);
    await vi.waitFor(() => expect(output()).toContain(`url=${A} key=set`), WAIT);
    await policy.restartFor(A);
    expect(starts()).toBe(1);

    await policy.restartFor(B);
    await vi.waitFor(() => expect(output()).toContain(`url=${B} key=set`), WAIT);
    expect(starts()).toBe(2);
  });

  it('waits until the route answers, however late', async () => {
    const { policy } = await usePolicy({ DELAY_MS: '600' });
    await policy.restartFor(A);
    const startedAt = Date.now();
    await policy.waitUntilAnswering();
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(400);
    expect(Date.now() - startedAt).toBeLessThan(5_000); // answered, not timed out (8 s)
  });

  it('stops waiting once the shutdown aborts', async () => {
    const { policy, abort } = await usePolicy({ DELAY_MS: '60000' });
    await policy.restartFor(A);
    const waiting = policy.waitUntilAnswering();
    abort.abort();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('reports child.exited when the dev server exits by itself', async () => {
    const { policy, facts } = await usePolicy({ EXIT: '3' });
    await policy.restartFor(A);
    await vi.waitFor(() => expect(facts).toEqual([{ type: 'child.exited', code: 3, signal: null }]), WAIT);
    // Not worth waiting for a dev server that is gone.
    await policy.waitUntilAnswering();
  });

  it('starts at the URL the last run used, so the dev server compiles while the tunnel opens', async () => {
    const { policy, output, dir } = await usePolicy();
    await updateProjectState(join(dir, 'data'), { toolsUrl: B });
    await policy.startAtRememberedUrl();
    await vi.waitFor(() => expect(output()).toContain(`url=${B} key=set`), WAIT);
    // The tunnel then opens at the same URL: no second start.
    await policy.restartFor(B);
    expect(policy.isStarted).toBe(true);
  });
});
