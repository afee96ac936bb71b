/**
 * Scenario 9: how quiet an idle daemon is. The built CLI (`median-dev start
 * --json`, default configuration: the localtunnel tunnel to the loopback
 * tunnel server, the inspector and the example route as its dev server) is
 * left alone for `idleMs` once its endpoint synced. Counted meanwhile:
 * - probe requests: HTTP requests for a tunnel's public name that reach the
 *   tunnel server (the daemon's `--tunnel-host` is a counting HTTP front that
 *   passes every request on to the real loopback tunnel server);
 * - wakeups: voluntary context switches of every thread of the daemon
 *   process (each time a thread blocked, on a timer, a socket or a lock,
 *   and was woken), from /proc/<pid>/task/<tid>/status; involuntary ones
 *   (a running thread preempted by other work on a shared machine) are
 *   counted apart, as they measure the machine's load, not the daemon;
 * - the main thread's share of the wakeups (the event loop's timers and
 *   sockets; the rest are V8's and libuv's worker threads).
 * Counting starts `settleMs` after the sync (default 30 s): the garbage of
 * start-up is collected in that window (V8's workers wake for it), which is
 * counted and reported apart.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, readdir } from 'node:fs/promises';
import { startDaemon, startWorld, isEvent } from './tunnel-heals.js';

export interface IdleQuietResult {
  idleSeconds: number;
  probeRequests: number;
  probesPerMinute: number;
  /** Voluntary context switches, all threads, per second; null off Linux. */
  wakeupsPerSecond: number | null;
  /** Of which the main thread's. */
  mainThreadWakeupsPerSecond: number | null;
  /** Involuntary context switches (preemptions), all threads, per second. */
  preemptionsPerSecond: number | null;
  /** Wakeups per second in the settle window right after the sync. */
  settleWakeupsPerSecond: number | null;
  settleSeconds: number;
}

interface Switches {
  voluntary: number;
  involuntary: number;
  mainVoluntary: number;
}

/** Context switches of every thread of `pid` (Linux); null elsewhere. */
async function contextSwitches(pid: number): Promise<Switches | null> {
  try {
    const total: Switches = { voluntary: 0, involuntary: 0, mainVoluntary: 0 };
    for (const tid of await readdir(`/proc/${pid}/task`)) {
      const status = await readFile(`/proc/${pid}/task/${tid}/status`, 'utf8').catch(() => '');
      const voluntary = Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
      total.voluntary += voluntary;
      total.involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
      if (tid === String(pid)) total.mainVoluntary += voluntary;
    }
    return total;
  } catch {
    return null; // not Linux: no /proc
  }
}

/** An HTTP front that passes every request on to `target` and counts those for a public (sub)domain name. */
async function startCountingFront(target: string, domain: string): Promise<{ url: string; count(): number; close(): Promise<void> }> {
  let count = 0;
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0]!.toLowerCase();
    if (host.endsWith(`.${domain}`)) count += 1;
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Idle on purpose: a duration to measure over, not a wait for something. */
const idleFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runIdleQuiet(options: { projectDir: string; idleMs: number; settleMs?: number }): Promise<IdleQuietResult> {
  const settleMs = options.settleMs ?? 30_000;
  const world = await startWorld();
  const front = await startCountingFront(world.tunnels.url, world.tunnels.domain);
  const daemon = await startDaemon(world, options.projectDir, front.url);
  try {
    await daemon.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    await daemon.waitForEvent((e) => isEvent(e, 'heal', { state: 'done' }), 30_000);
    const atSync = await contextSwitches(daemon.pid);
    const settleFrom = Date.now();
    await idleFor(settleMs);
    const settleSeconds = (Date.now() - settleFrom) / 1000;
    const probesBefore = front.count();
    const before = await contextSwitches(daemon.pid);
    const from = Date.now();
    await idleFor(options.idleMs);
    const idleSeconds = (Date.now() - from) / 1000;
    const after = await contextSwitches(daemon.pid);
    const probeRequests = front.count() - probesBefore;
    const perSecond = (pick: (s: Switches) => number, a: Switches | null, b: Switches | null, seconds: number) => (a === null || b === null ? null : (pick(b) - pick(a)) / seconds);
    return {
      idleSeconds,
      probeRequests,
      probesPerMinute: (probeRequests * 60) / idleSeconds,
      wakeupsPerSecond: perSecond((s) => s.voluntary, before, after, idleSeconds),
      mainThreadWakeupsPerSecond: perSecond((s) => s.mainVoluntary, before, after, idleSeconds),
      preemptionsPerSecond: perSecond((s) => s.involuntary, before, after, idleSeconds),
      settleWakeupsPerSecond: perSecond((s) => s.voluntary, atSync, before, settleSeconds),
      settleSeconds,
    };
  } finally {
    await daemon.stop(10_000);
    await front.close();
    await world.emulator.close();
    await world.tunnels.close();
  }
}
