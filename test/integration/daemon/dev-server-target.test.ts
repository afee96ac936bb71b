import { describe, expect, it, vi } from 'vitest';
import { createChildKeeper } from '../../../src/child/index.js';
import type { TargetFrom } from '../../../src/config/index.js';
import { createDevServerTarget, type DevServerTarget } from '../../../src/daemon/dev-server-target.js';
import { createTargetWatch } from '../../../src/daemon/target-watch.js';
import type { DaemonEvent, NewDaemonEvent } from '../../../src/events/index.js';
import { findListeningPorts, realPortLookupSystem } from '../../../src/platform/index.js';
import { startRecordingProxy } from '../../../src/proxy/index.js';
import type { CallRecord } from '../../../src/median/index.js';
import { silentLogger } from '../../../src/shared/index.js';
import { waitForOnClock } from '../../helpers/drive-clock.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { refusedOrigin, refusedPort } from '../../helpers/refused-port.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { ROUTE, send, toolCallBody } from '../proxy/proxy-harness.js';

const WAIT = { timeout: 10_000, interval: 20 };

/**
 * The finder looks, falls back and times the announced address on a manual
 * clock the tests drive (waitForOnClock: each look that finds the assertion
 * failing moves it on to the finder's next look); the dev server, the port
 * lookup and the probes stay real. Where the dev server's own start is what
 * the finder waits for, the test first waits for the line it prints once it
 * listens, so the clock never runs ahead of a real process.
 */

/**
 * A real dev server: after DELAY_MS it listens on port 0 and answers
 * `{"result":"<name>"}`; with ANNOUNCE it prints Vite's ready line for its port.
 */
const DEV_SERVER = `
  setTimeout(() => {
    const server = require('node:http').createServer((q, s) => { q.resume(); s.setHeader('content-type', 'application/json'); s.end(JSON.stringify({ result: process.env.NAME })); });
    server.listen(0, '127.0.0.1', () => {
      if (process.env.ANNOUNCE) console.log('  \\u001b[32m➜\\u001b[39m  Local:   http://localhost:' + server.address().port + '/');
      console.log('  ➜  Network: use --host to expose');
    });
  }, Number(process.env.DELAY_MS || 0));
  if (process.env.ANNOUNCE_ONLY) console.log('Listening on http://127.0.0.1:' + process.env.ANNOUNCE_ONLY);
`;

interface Setup {
  env?: Record<string, string>;
  target?: string;
  targetFrom?: TargetFrom;
  hasCommand?: boolean;
  /** How often the finder looks at the dev server (default: the product's 250 ms). */
  pollMs?: number;
}

/** The daemon's call path as start-daemon.ts wires it: a real proxy, the finder, and a real dev server process. */
async function useDevServerTarget(setup: Setup = {}) {
  const clock = createManualClock();
  const guess = await useHttpServer((_req, res) => res.end('{"result":"guess"}'));
  const events: NewDaemonEvent[] = [];
  const records: CallRecord[] = [];
  const remembered: Array<[string, string]> = [];
  const abort = new AbortController();
  useTeardown(abort, (a) => a.abort());
  let finder: DevServerTarget | undefined;
  const proxy = useTeardown(
    await startRecordingProxy({ target: setup.target ?? guess.url, route: ROUTE, onRecord: (record) => void records.push(record), devServerPhase: () => finder?.phase() ?? null, onTargetAnswered: () => finder?.answered() }),
    (p) => p.close(),
  );
  const target = setup.target ?? guess.url;
  const config = { target, targetFrom: setup.targetFrom ?? 'default', route: ROUTE } as const;
  const emit = (event: NewDaemonEvent) => {
    events.push(event);
    finder?.take({ ...event, at: new Date().toISOString() } as DaemonEvent);
  };
  const targetWatch = createTargetWatch({ target: () => finder?.current() ?? target, route: ROUTE, emit });
  const portSystem = realPortLookupSystem({ PATH: process.env.PATH });
  finder = createDevServerTarget({
    config,
    hasCommand: setup.hasCommand !== false,
    proxyPort: proxy.port,
    setProxyTarget: (origin) => proxy.setTarget(origin),
    emit,
    remember: async (origin, how) => void remembered.push([origin, how]),
    lookupPorts: (pid) => findListeningPorts(pid, portSystem),
    targetWatch,
    signal: abort.signal,
    logger: silentLogger,
    timing: { silentFallbackMs: 2_000, ...(setup.pollMs ? { pollMs: setup.pollMs } : {}) },
    clock,
  });
  const child = createChildKeeper({
    command: [process.execPath, '-e', DEV_SERVER],
    cwd: process.cwd(),
    env: () => ({ PATH: process.env.PATH, NAME: 'dev', ...setup.env }),
    emit,
    logger: silentLogger,
  });
  useTeardown(child, (c) => c.close({ graceMs: 500 }));
  const targetEvents = () => events.filter((e): e is Extract<NewDaemonEvent, { event: 'target' }> => e.event === 'target');
  const call = async () => {
    const answer = await send(`${proxy.url}${ROUTE}`, { method: 'POST', body: toolCallBody('orderStatus', {}) });
    return { status: answer.status, headers: answer.headers, body: answer.body.toString() };
  };
  const output = () => events.flatMap((e) => (e.event === 'output' ? [e.line] : []));
  /** Waits for `assertion` while driving the finder's clock: a look every 10 ms (a look is a /proc read and a loopback connect). */
  const onClock = (assertion: () => void) => waitForOnClock(clock, assertion, { interval: 10 });
  return { finder, proxy, child, events, targetEvents, records, remembered, call, guess, clock, abort, output, onClock };
}

describe('the target found from the dev server', () => {
  it('proxies to the URL it announces, says so once, and remembers it', async () => {
    const world = await useDevServerTarget({ env: { ANNOUNCE: '1' } });
    await world.child.restart();
    // Its line first, as a dev server's comes within moments of listening: driven ahead of the line
    // (a loaded machine), the clock would give the port lookup's two looks the time first.
    await vi.waitFor(() => expect(world.output().some((line) => line.includes('Local:'))).toBe(true), WAIT);

    await world.onClock(() => expect(world.targetEvents().at(-1)).toMatchObject({ state: 'listening', how: 'announced' }));
    const found = world.targetEvents().filter((e) => e.message && e.how === 'announced');
    expect(found).toHaveLength(1);
    expect(found[0]?.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect(found[0]?.line).toMatch(/^➜ {2}Local: {3}http:\/\/localhost:\d+\/$/);
    expect(world.remembered).toEqual([[found[0]?.url, 'announced']]);
    expect(JSON.parse((await world.call()).body)).toEqual({ result: 'dev' });
  });

  it('proxies to the port it opens when it announces nothing (the OS port lookup)', async () => {
    const world = await useDevServerTarget();
    await world.child.restart();
    // It prints this once it listens: from then on the finder's looks can see its port.
    await vi.waitFor(() => expect(world.output().some((line) => line.includes('Network: use --host to expose'))).toBe(true), WAIT);

    await world.onClock(() => expect(world.targetEvents().at(-1)).toMatchObject({ state: 'listening', how: 'listening' }));
    expect(world.finder.current()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(world.remembered).toEqual([[world.finder.current(), 'listening']]);
    expect(JSON.parse((await world.call()).body)).toEqual({ result: 'dev' });
  });

  it('answers 503 with Retry-After before the dev server is up, recorded as such, and never the guess', async () => {
    const world = await useDevServerTarget({ env: { ANNOUNCE: '1', DELAY_MS: '60000' } });
    await world.child.restart();
    await vi.waitFor(() => expect(world.targetEvents().at(-1)).toMatchObject({ state: 'finding', url: null }), WAIT);

    const early = await world.call();

    expect(early.status).toBe(503);
    expect(early.headers['retry-after']).toBe('2');
    expect(JSON.parse(early.body)).toMatchObject({ error: { code: 'dev_server_starting' } });
    await vi.waitFor(() => expect(world.records[0]).toMatchObject({ response: null, error: { code: 'dev_server_starting' } }), WAIT);
  });

  it('tries the remembered or default target when the dev server says nothing and opens no port in time', async () => {
    const world = await useDevServerTarget({ env: { DELAY_MS: '60000' } });
    await world.child.restart();

    await world.onClock(() => expect(world.targetEvents().at(-1)).toMatchObject({ state: 'listening', how: 'default', url: world.guess.url }));
    expect(world.targetEvents().some((e) => e.how === 'default' && e.message !== undefined)).toBe(true);
    expect(JSON.parse((await world.call()).body)).toEqual({ result: 'guess' });
  });

  it('keeps an explicit --target whatever the dev server announces', async () => {
    const named = await useHttpServer((_req, res) => res.end('{"result":"named"}'));
    const world = await useDevServerTarget({ env: { ANNOUNCE: '1' }, target: named.url, targetFrom: 'flag' });
    await world.child.restart();

    await world.onClock(() => expect(world.targetEvents().at(-1)).toMatchObject({ state: 'listening', how: 'flag', url: named.url }));
    await vi.waitFor(() => expect(world.events.some((e) => e.event === 'output' && e.line.includes('Local:'))).toBe(true), WAIT);
    expect(world.finder.current()).toBe(named.url);
    expect(world.remembered).toEqual([]);
    expect(JSON.parse((await world.call()).body)).toEqual({ result: 'named' });
  });

  it('says target_unreachable within 3 s when the address it announced does not listen', async () => {
    const gone = { port: await refusedPort(), url: await refusedOrigin() };
    const world = await useDevServerTarget({ env: { ANNOUNCE_ONLY: String(gone.port), DELAY_MS: '60000' } });
    await world.child.restart();
    await vi.waitFor(() => expect(world.targetEvents().some((e) => e.how === 'announced' && e.url === gone.url)).toBe(true), WAIT);
    const announcedAt = world.clock.now();

    await world.onClock(() => expect(world.events.some((e) => e.event === 'error' && e.code === 'target_unreachable')).toBe(true));
    expect(world.clock.now() - announcedAt).toBeLessThan(5_000);
    expect((await world.call()).status).toBe(503);
    // Closed (the daemon's abort): no look is left waiting on the clock.
    world.abort.abort();
    expect(world.clock.pendingTimers()).toBe(0);
  });

  it('with --target: target_unreachable within 3 s of the dev server announcing that address, not 10 s', async () => {
    const gone = { port: await refusedPort(), url: await refusedOrigin() };
    const world = await useDevServerTarget({ env: { ANNOUNCE_ONLY: String(gone.port), DELAY_MS: '60000' }, target: gone.url, targetFrom: 'flag' });
    await world.child.restart();
    await vi.waitFor(() => expect(world.targetEvents().at(-1)).toMatchObject({ state: 'starting', how: 'flag', url: gone.url }), WAIT);
    const startedAt = world.clock.now();
    // The line it announces the address with, read (real output) before the clock moves.
    await vi.waitFor(() => expect(world.output()).toContain(`Listening on http://127.0.0.1:${gone.port}`), WAIT);

    await world.onClock(() => expect(world.events.some((e) => e.event === 'error' && e.code === 'target_unreachable')).toBe(true));
    expect(world.clock.now() - startedAt).toBeLessThan(6_000);
  });

  it('takes a call answered at the target as listening at once: a refused connection after it is a 502, not "starting"', async () => {
    const named = await useHttpServer((_req, res) => res.end('{"result":"named"}'));
    // The finder's own look never comes in this test: only the answered call can say it listens.
    const world = await useDevServerTarget({ target: named.url, targetFrom: 'flag', pollMs: 600_000 });
    await world.child.restart();
    await vi.waitFor(() => expect(world.targetEvents().at(-1)).toMatchObject({ state: 'starting', how: 'flag' }), WAIT);
    expect(world.finder.phase()).toBe('starting');

    expect((await world.call()).status).toBe(200);
    await vi.waitFor(() => expect(world.targetEvents().at(-1)).toMatchObject({ state: 'listening', how: 'flag', url: named.url }), WAIT);
    expect(world.finder.phase()).toBeNull();

    // The dev server reloads: the gap is the dev server gone (502 target_unreachable), not one starting (503).
    await named.close();
    const gap = await world.call();
    expect(gap.status).toBe(502);
    expect(JSON.parse(gap.body)).toMatchObject({ error: { code: 'target_unreachable' } });
  });
});
