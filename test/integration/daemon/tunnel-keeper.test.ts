import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { resolveStartConfig } from '../../../src/config/index.js';
import { startTunnelKeeper } from '../../../src/daemon/tunnel-keeper.js';
import type { DaemonFact, NewDaemonEvent } from '../../../src/events/index.js';
import type { RegistrationFault, TunnelServer } from '../../../src/tunnel-server/index.js';
import type { TunnelTuning } from '../../../src/daemon/tunnel-keeper.js';
import { waitForOnClock } from '../../helpers/drive-clock.js';
import { createManualClock, type ManualClock } from '../../helpers/manual-clock.js';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { useTunnelServer } from '../../helpers/use-tunnel-server.js';

const WAIT = { timeout: 10_000 };

const FAST: TunnelTuning = { reconnectBaseMs: 20, reconnectMaxMs: 100, openTimeoutMs: 3_000, lostAfterMs: 300, probe: false };

/** The tunnel keeper against the loopback tunnel server, with fast backoff (or `tuning`); its events and facts noted. */
async function useKeeper(server: TunnelServer, subdomain: string, { tuning = FAST, clock }: { tuning?: TunnelTuning; clock?: ManualClock } = {}) {
  const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-keeper-')), (d) => rm(d, { recursive: true, force: true }));
  const app = await useHttpServer((_req, res) => res.end('ok'));
  const config = await resolveStartConfig(
    { tunnelHost: server.url, subdomain, dataDir: join(dir, 'data'), envFile: false, tui: false },
    { env: {}, cwd: dir, isTTY: false },
  );
  const abort = new AbortController();
  const events: NewDaemonEvent[] = [];
  const facts: DaemonFact[] = [];
  const remembered: string[] = [];
  const keeper = useTeardown(
    await startTunnelKeeper({
      config,
      localPort: app.port,
      instanceId: 'inst_keeper',
      logger: createRecordingLogger(),
      emit: (e) => events.push(e),
      report: (f) => facts.push(f),
      signal: abort.signal,
      remember: async (patch) => void (patch.subdomain && remembered.push(patch.subdomain)),
      env: {},
      tuning,
      ...(clock ? { clock } : {}),
    }),
    async (k) => {
      abort.abort();
      await k.close();
    },
  );
  return { keeper, events, facts, remembered };
}

describe('the tunnel keeper', () => {
  it('reports tunnel.opened with the public origin, and says so as a tunnel event', async () => {
    const server = await useTunnelServer();
    const { events, facts, remembered } = await useKeeper(server, 'keeper-one');

    await vi.waitFor(() => expect(facts).toEqual([{ type: 'tunnel.opened', origin: 'https://keeper-one.lt.median.test', isHostnameChange: false }]), WAIT);
    expect(remembered).toEqual(['keeper-one']);
    expect(events[0]).toEqual({ event: 'tunnel', state: 'connecting', requestedSubdomain: 'keeper-one' });
    expect(events).toContainEqual(expect.objectContaining({ event: 'tunnel', state: 'open', url: 'https://keeper-one.lt.median.test' }));
  });

  it('retries a failed first open with the backoff, says the error once, and reports the open when it works', async () => {
    const server = await useTunnelServer();
    server.setRegistrationFault({ status: 500 });
    const { events, facts } = await useKeeper(server, 'keeper-two');

    await vi.waitFor(() => expect(server.stats().registrations).toBeGreaterThanOrEqual(3), WAIT);
    // Each failed first open is reported (the dispatch starts the dev server without a tunnel on the first).
    await vi.waitFor(() => expect(facts.length).toBeGreaterThanOrEqual(2), WAIT);
    expect(new Set(facts.map((f) => JSON.stringify(f)))).toEqual(new Set([JSON.stringify({ type: 'tunnel.openFailed', isFinal: false })]));
    server.setRegistrationFault(null);
    await vi.waitFor(() => expect(facts.at(-1)?.type).toBe('tunnel.opened'), WAIT);
    expect(facts.filter((f) => f.type !== 'tunnel.openFailed').map((f) => f.type)).toEqual(['tunnel.opened']);

    expect(events.filter((e) => e.event === 'error')).toEqual([expect.objectContaining({ code: 'tunnel_registration_refused' })]);
    expect(events.filter((e) => e.event === 'tunnel' && e.state === 'down').length).toBeGreaterThanOrEqual(2);
  });

  it('reports tunnel.lost when the server forgets the tunnel, then tunnel.opened again after the reopen', async () => {
    const server = await useTunnelServer({ offlineGraceMs: 100 });
    const { facts } = await useKeeper(server, 'keeper-three');
    await vi.waitFor(() => expect(facts).toHaveLength(1), WAIT);

    server.dropClient('keeper-three', { forget: true });

    await vi.waitFor(() => expect(facts.map((f) => f.type)).toEqual(['tunnel.opened', 'tunnel.lost', 'tunnel.opened']), WAIT);
  });

  it('refuses a simulated hostname change outside the demo with not_in_demo', async () => {
    const server = await useTunnelServer();
    const { keeper } = await useKeeper(server, 'keeper-four');
    await expect(keeper.simulateHostnameChange()).rejects.toMatchObject({ code: 'not_in_demo' });
  });
});

/**
 * Moved here from test/e2e/faults/tunnel-faults.test.ts (which keeps the 403
 * case end to end, with its CPU measure): the same assertions on the events
 * the keeper emits (what `start --json` prints), with the default backoff on a
 * manual clock, so the 1 s and 2 s waits take no time.
 */
describe('the tunnel keeper when the server answers the re-registration badly', () => {
  it.each<[string, RegistrationFault, string]>([
    ['403', { status: 403 }, 'tunnel_registration_refused'],
    ['500', { status: 500 }, 'tunnel_registration_refused'],
    ['garbage', 'garbage', 'tunnel_bad_registration'],
  ])('%s: one error with its code, a quick try then the backoff from 1 s, one registration a try, healed once it answers well', async (_name, fault, code) => {
    const clock = createManualClock();
    const server = await useTunnelServer();
    const name = `keeper-fault-${_name}`;
    const { events, facts } = await useKeeper(server, name, { tuning: { ...FAST, reconnectBaseMs: undefined, reconnectMaxMs: undefined }, clock });
    await vi.waitFor(() => expect(facts).toHaveLength(1), WAIT);
    const mark = events.length;
    const after = () => events.slice(mark);
    const failures = () => after().flatMap((e) => (e.event === 'tunnel' && e.state === 'down' && e.reason?.startsWith(`reopening failed (${code})`) ? [e] : []));

    server.setRegistrationFault(fault);
    server.dropClient(name, { forget: true });
    // The sockets' retries and the lost window run on the clock too: moved on a timer per poll until the loss.
    await waitForOnClock(clock, () => expect(facts.map((f) => f.type)).toContain('tunnel.lost'));
    const registrationsBefore = server.stats().registrations;
    // The quick reopen (at most 200 ms), then each announced wait (rounded to 0.1 s: 100 ms more).
    clock.advance(200);
    await vi.waitFor(() => expect(failures()).toHaveLength(1), WAIT);
    clock.advance(1_100);
    await vi.waitFor(() => expect(failures()).toHaveLength(2), WAIT);
    expect(failures().map((e) => e.reason)).toEqual([expect.stringMatching(/next try in (0\.\d|1) s$/), expect.stringMatching(/next try in (1\.\d|2) s$/)]);
    // No try between the backoff's steps: one registration each.
    expect(server.stats().registrations - registrationsBefore).toBe(2);
    expect(after().filter((e) => e.event === 'error')).toEqual([expect.objectContaining({ code, hint: expect.any(String) })]);

    server.setRegistrationFault(null);
    clock.advance(2_100);
    await vi.waitFor(() => expect(facts.at(-1)).toEqual({ type: 'tunnel.opened', origin: `https://${name}.lt.median.test`, isHostnameChange: false }), WAIT);
    expect(after().filter((e) => e.event === 'error')).toHaveLength(1);
  });
});
