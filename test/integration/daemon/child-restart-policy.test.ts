import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { updateProjectState, type RestartOnUrlChange } from '../../../src/config/index.js';
import { createChildRestartPolicy } from '../../../src/daemon/child-restart-policy.js';
import { createEnvVars } from '../../../src/daemon/env-vars.js';
import { DEFAULT_RETRY_POLICY } from '../../../src/endpoints/index.js';
import type { DaemonFact, NewDaemonEvent } from '../../../src/events/index.js';
import { freeTestPort } from '../../helpers/free-test-port.js';
import { advanceShortWaitsUntil } from '../../helpers/advance-short-waits.js';
import { waitForOnClock } from '../../helpers/drive-clock.js';
import { installFakeNextDev } from '../../helpers/fake-next-dev.js';
import { createManualClock, type ManualClock } from '../../helpers/manual-clock.js';
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

interface PolicySetup {
  restartOnUrlChange?: RestartOnUrlChange;
  /** The dev server command, given the project folder; default a plain node script. */
  command?: (dir: string) => Promise<string[]>;
  /** The env file's text before the start (the file is `.env.local` in the project folder). */
  envFileText?: string;
  vars?: Record<string, string>;
  /** The env file the key came from, given the project folder; default the env file. */
  keyFile?: (dir: string) => string;
  /** The policy's clock (its reload wait, the wait for the route, the stop grace); default real time. */
  clock?: ManualClock;
}

async function usePolicy(env: Record<string, string> = {}, setup: PolicySetup = {}) {
  const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-childpolicy-')), (d) => rm(d, { recursive: true, force: true }));
  const envFile = join(dir, '.env.local');
  if (setup.envFileText !== undefined) await writeFile(envFile, setup.envFileText);
  const command = setup.command ? await setup.command(dir) : [process.execPath, '-e', DEV_SERVER];
  const vars = createEnvVars(setup.vars ?? {});
  // The dev server binds it later, in its own process: a port below the ephemeral range, this worker's own.
  const port = await freeTestPort();
  const abort = new AbortController();
  useTeardown(abort, (a) => a.abort());
  const events: NewDaemonEvent[] = [];
  const facts: DaemonFact[] = [];
  const policy = useTeardown(
    createChildRestartPolicy({
      config: {
        cwd: dir,
        target: `http://127.0.0.1:${port}`,
        route: '/api/median',
        dataDir: join(dir, 'data'),
        keySource: 'env-file',
        keyFile: setup.keyFile?.(dir) ?? envFile,
        envFile,
        restartOnUrlChange: setup.restartOnUrlChange ?? 'auto',
      },
      command,
      daemonPid: process.pid,
      baseEnv: { PATH: process.env.PATH, PORT: String(port), DELAY_MS: '0', ...env },
      vars,
      key: () => KEY,
      emit: (e) => events.push(e),
      report: (f) => facts.push(f),
      logger: createRecordingLogger(),
      signal: abort.signal,
      timing: { routeReadyTimeoutMs: 8_000, childStopGraceMs: 1_000 },
      ...(setup.clock ? { clock: setup.clock } : {}),
    }),
    (p) => p.close(),
  );
  const output = () => events.flatMap((e) => (e.event === 'output' ? [e.line] : []));
  const starts = () => events.filter((e) => e.event === 'child' && e.state === 'starting').length;
  const logs = () => events.flatMap((e) => (e.event === 'log' ? [e.message] : []));
  return { policy, events, facts, output, starts, logs, dir, abort, envFile, vars };
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

  it('starts without a tunnel with the env file as it is; a tunnel at that URL restarts nothing, another URL restarts it', async () => {
    const { policy, output, starts } = await usePolicy({}, { vars: { MEDIAN_TOOLS_URL: A } });
    await policy.startLocally();
    await vi.waitFor(() => expect(output()).toContain(`url=${A} key=set`), WAIT);
    await policy.waitUntilAnswering();
    expect(policy.toolsUrl).toBe(A);
    await policy.startLocally(); // already running: nothing
    await policy.restartFor(A);
    expect(starts()).toBe(1);

    await policy.restartFor(B);
    await vi.waitFor(() => expect(output()).toContain(`url=${B} key=set`), WAIT);
    expect(starts()).toBe(2);
  });

  it('starts without a tunnel and without MEDIAN_TOOLS_URL when the env file has none', async () => {
    const { policy, output } = await usePolicy();
    await policy.startLocally();
    await vi.waitFor(() => expect(output()).toContain('url=undefined key=set'), WAIT);
    expect(policy.toolsUrl).toBeUndefined();
  });
});

describe('--restart-on-url-change', () => {
  /** What the tools-URL writer does on a heal: the URL into the env file, then noted in the vars. */
  async function writeToolsUrl(setup: { envFile: string; vars: ReturnType<typeof createEnvVars> }, url: string): Promise<void> {
    await writeFile(setup.envFile, `MEDIAN_KEY=${KEY}\nMEDIAN_TOOLS_URL=${url}\n`);
    setup.vars.set({ MEDIAN_KEY: KEY, MEDIAN_TOOLS_URL: url });
  }
  const fakeNext = { command: installFakeNextDev, envFileText: `MEDIAN_KEY=${KEY}\n` };

  it('auto: leaves next dev running on a URL change, keeps MEDIAN_TOOLS_URL out of its environment, and waits until it reloaded the env file', async () => {
    // A MEDIAN_TOOLS_URL exported in the shell would mask the file just the same: it is left out too.
    const setup = await usePolicy({ MEDIAN_TOOLS_URL: 'https://from-the-shell.example/api/median' }, fakeNext);
    const { policy, output, starts, logs } = setup;
    await writeToolsUrl(setup, A);
    await policy.restartFor(A);
    await policy.waitUntilAnswering();
    const first = output().find((line) => line.startsWith('env '));
    expect(first).toMatch(new RegExp(`^env MEDIAN_TOOLS_URL=${A} pid=\\d+$`));
    expect(logs().filter((m) => m.includes('next dev recognised: it reloads .env.local by itself'))).toHaveLength(1);

    await writeToolsUrl(setup, B);
    await policy.restartFor(B);
    // restartFor resolved only once the dev server said it reloaded: the new URL is in the same process.
    expect(output()).toContain('  Reload env: .env.local');
    await vi.waitFor(() => expect(output()).toContain(first!.replace(A, B)), WAIT);
    expect(starts()).toBe(1);
    expect(logs()).toContain(`next dev reloaded .env.local: its route has MEDIAN_TOOLS_URL=${B} without a restart.`);
    await policy.restartFor(B);
    expect(starts()).toBe(1);
    expect(logs().filter((m) => m.includes('next dev recognised: it reloads .env.local by itself'))).toHaveLength(1);
  });

  it('auto: a key rotated in .env.local leaves next dev running and waits for its reload; R still restarts it', async () => {
    const setup = await usePolicy({}, fakeNext);
    const { policy, output, starts, logs } = setup;
    await writeToolsUrl(setup, A);
    await policy.restartFor(A);
    await policy.waitUntilAnswering();
    await writeFile(setup.envFile, `MEDIAN_KEY=${KEY.replace(/.$/, 'Z')}\nMEDIAN_TOOLS_URL=${A}\n`);
    await policy.followKey(setup.envFile);
    expect(output()).toContain('  Reload env: .env.local');
    expect(starts()).toBe(1);
    expect(logs()).toContain('next dev reloaded .env.local: its route has the new MEDIAN_KEY without a restart.');
    // A key from a file it does not read (another folder's) reaches it only through a restart.
    await policy.followKey(join(setup.dir, 'config', '.env.local'));
    await vi.waitFor(() => expect(starts()).toBe(2), WAIT);
  });

  it('auto: a dev server left running still gets MEDIAN_KEY in its environment when the key is in a file it does not read', async () => {
    // Named next dev (so it is left running), it prints whether MEDIAN_KEY reached its environment.
    const asNextDev = async (dir: string) => {
      const bin = join(dir, 'node_modules', 'next', 'dist', 'bin', 'next');
      await mkdir(dirname(bin), { recursive: true });
      await writeFile(bin, DEV_SERVER);
      return [process.execPath, bin, 'dev'];
    };
    const unread = await usePolicy({}, { command: asNextDev, keyFile: (dir) => join(dir, 'config', '.env.local') });
    await unread.policy.restartFor(A);
    await vi.waitFor(() => expect(unread.output()).toContain('url=undefined key=set'), WAIT);
    const read = await usePolicy({}, { command: asNextDev });
    await read.policy.restartFor(A);
    await vi.waitFor(() => expect(read.output()).toContain('url=undefined key=none'), WAIT);
  });

  it('auto: node --watch is recognised and restarted for a new URL and a new key (a real node --watch)', async () => {
    const setup = await usePolicy({}, {
      command: async (dir) => {
        await writeFile(join(dir, 'server.js'), DEV_SERVER);
        return [process.execPath, '--watch', join(dir, 'server.js')];
      },
    });
    const { policy, output, starts, logs } = setup;
    await policy.restartFor(A);
    await vi.waitFor(() => expect(output()).toContain(`url=${A} key=set`), WAIT);
    expect(logs()[0]).toMatch(/^node --watch recognised: it restarts when your code changes but never rereads env files, so median-dev restarts it/);
    await policy.restartFor(B);
    await vi.waitFor(() => expect(output()).toContain(`url=${B} key=set`), WAIT);
    expect(starts()).toBe(2);
    await policy.followKey(setup.envFile);
    await vi.waitFor(() => expect(starts()).toBe(3), WAIT);
  });

  it('auto: a dev server that says nothing within the wait is left running, with a warning that names the fix', async () => {
    const clock = createManualClock();
    const setup = await usePolicy({}, { ...fakeNext, clock });
    const { policy, starts, logs } = setup;
    await writeToolsUrl(setup, A);
    await policy.restartFor(A);
    // The real next dev starts meanwhile: the clock moves on to each look at its route, about as fast as real time.
    let isAnswering = false;
    void policy.waitUntilAnswering().then(() => (isAnswering = true));
    await waitForOnClock(clock, () => expect(isAnswering).toBe(true));
    // The same URL written again: the file does not change, so it prints nothing, and the wait (3 s, on the clock) runs out.
    const startedAt = clock.now();
    await advanceShortWaitsUntil(clock, policy.restartFor(B));
    expect(clock.now() - startedAt).toBeGreaterThanOrEqual(2_500);
    expect(starts()).toBe(1);
    expect(logs().some((m) => m.startsWith('next dev did not say it reloaded .env.local within 3 s') && m.includes('--restart-on-url-change always'))).toBe(true);
  });

  it('auto: a reload it already said just before the wait counts (the file was written a moment earlier)', async () => {
    const setup = await usePolicy({}, fakeNext);
    const { policy, output, starts, logs } = setup;
    await writeToolsUrl(setup, A);
    await policy.restartFor(A);
    await policy.waitUntilAnswering();
    await writeToolsUrl(setup, B);
    await vi.waitFor(() => expect(output()).toContain('  Reload env: .env.local'), WAIT);
    const startedAt = Date.now();
    await policy.restartFor(B);
    expect(Date.now() - startedAt).toBeLessThan(1_000); // not the 3 s wait
    expect(starts()).toBe(1);
    expect(logs()).toContain(`next dev reloaded .env.local: its route has MEDIAN_TOOLS_URL=${B} without a restart.`);
  });

  it('auto: 500s while next dev compiles, after its start and an env reload, are it starting: the wait goes on', async () => {
    const clock = createManualClock();
    const setup = await usePolicy({ FAKE_NEXT_500S: '3' }, { ...fakeNext, clock });
    const { policy, output } = setup;
    const compiling500s = () => output().filter((line) => line === 'compiling: answered 500').length;
    await writeToolsUrl(setup, A);
    const startedAt = clock.now();
    await policy.restartFor(A);
    expect(policy.startingSince).toBe(startedAt);
    // Listening first (real time), so the clock does not outrun its start; then it jumps only the pauses between looks, never a look's timeout.
    await vi.waitFor(() => expect(output().some((line) => line.startsWith('ready on'))).toBe(true), WAIT);
    await advanceShortWaitsUntil(clock, policy.waitUntilAnswering(), 1_000);
    await vi.waitFor(() => expect(compiling500s()).toBe(3), WAIT); // each 500 was looked past, not taken for an answer
    // Its first real answer opens the window again (Next compiles the route then): after at least three pauses.
    expect(policy.startingSince).toBeGreaterThanOrEqual(startedAt + 150);

    await writeToolsUrl(setup, B);
    await policy.restartFor(B); // resolves on its reload line
    const reloadedAt = policy.startingSince!;
    await advanceShortWaitsUntil(clock, policy.waitUntilAnswering(), 1_000);
    await vi.waitFor(() => expect(compiling500s()).toBe(6), WAIT);
    expect(policy.startingSince).toBeGreaterThan(reloadedAt);
  });

  it('auto: a dev server that keeps answering 500 counts as answering once the starting window is over', async () => {
    const clock = createManualClock();
    const setup = await usePolicy({ FAKE_NEXT_500S: '1000000' }, { ...fakeNext, clock });
    await writeToolsUrl(setup, A);
    const startedAt = clock.now();
    await setup.policy.restartFor(A);
    await vi.waitFor(() => expect(setup.output().some((line) => line.startsWith('ready on'))).toBe(true), WAIT);
    await advanceShortWaitsUntil(clock, setup.policy.waitUntilAnswering(), 1_000);
    const waitedMs = clock.now() - startedAt;
    expect(waitedMs).toBeGreaterThanOrEqual(DEFAULT_RETRY_POLICY.starting.windowMs);
    expect(waitedMs).toBeLessThan(8_000); // its 500 ended the wait, not the wait's timeout
    expect(setup.policy.startingSince).toBe(startedAt); // a 500 past the window opens no second window
  });

  it('always: restarts next dev too, with the URL in its environment', async () => {
    const setup = await usePolicy({}, { ...fakeNext, restartOnUrlChange: 'always' });
    const { policy, output, starts, logs } = setup;
    await writeToolsUrl(setup, A);
    await policy.restartFor(A);
    await writeToolsUrl(setup, B);
    await policy.restartFor(B);
    await vi.waitFor(() => expect(output().filter((l) => l.startsWith(`env MEDIAN_TOOLS_URL=${B} `))).toHaveLength(1), WAIT);
    expect(starts()).toBe(2);
    expect(logs()).toEqual([]);
  });

  it('never: starts the dev server once and says, once per URL, that it keeps the old one', async () => {
    const { policy, output, starts, logs } = await usePolicy({}, { restartOnUrlChange: 'never' });
    await policy.restartFor(A);
    await vi.waitFor(() => expect(output()).toContain(`url=${A} key=set`), WAIT);
    await policy.restartFor(B);
    await policy.restartFor(B);
    expect(starts()).toBe(1);
    const kept = logs().filter((m) => m.startsWith(`The dev server keeps MEDIAN_TOOLS_URL=${A} in its environment (--restart-on-url-change never)`));
    expect(kept).toHaveLength(1);
    expect(logs()[0]).toContain('is never restarted when the tunnel URL changes');
    // R restarts it, and then it has the new URL.
    await policy.restart();
    await vi.waitFor(() => expect(output()).toContain(`url=${B} key=set`), WAIT);
    expect(starts()).toBe(2);
  });
});
