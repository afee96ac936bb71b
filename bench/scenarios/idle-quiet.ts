/**
 * Scenario 9: how quiet an idle daemon is. The built CLI (`median-dev start
 * --json`, default configuration: the localtunnel tunnel to the loopback
 * tunnel server, the inspector and the example route as its dev server) is
 * left alone for `idleMs` once its endpoint synced. Counted meanwhile:
 * - probe requests: HTTP requests for a tunnel's public name that reach the
 *   tunnel server (the daemon's `--tunnel-host` is a counting HTTP front that
 *   passes every request on to the real loopback tunnel server);
 * - wakeups: context switches of every thread of the daemon process (each
 *   time a thread blocks and runs again), from /proc/<pid>/task/<tid>/status.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, readdir } from 'node:fs/promises';
import { startDaemon, startWorld, isEvent } from './tunnel-heals.js';

export interface IdleQuietResult {
  idleSeconds: number;
  probeRequests: number;
  probesPerMinute: number;
  contextSwitches: number | null;
  wakeupsPerSecond: number | null;
}

/** Voluntary + involuntary context switches of every thread of `pid` (Linux); null elsewhere. */
async function contextSwitches(pid: number): Promise<number | null> {
  try {
    let total = 0;
    for (const tid of await readdir(`/proc/${pid}/task`)) {
      const status = await readFile(`/proc/${pid}/task/${tid}/status`, 'utf8').catch(() => '');
      for (const m of status.matchAll(/^(?:voluntary|nonvoluntary)_ctxt_switches:\s+(\d+)$/gm)) total += Number(m[1]);
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

export async function runIdleQuiet(options: { projectDir: string; idleMs: number }): Promise<IdleQuietResult> {
  const world = await startWorld();
  const front = await startCountingFront(world.tunnels.url, world.tunnels.domain);
  const daemon = await startDaemon(world, options.projectDir, front.url);
  try {
    await daemon.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    await daemon.waitForEvent((e) => isEvent(e, 'heal', { state: 'done' }), 30_000);
    const probesBefore = front.count();
    const switchesBefore = await contextSwitches(daemon.pid);
    const from = Date.now();
    // Idle on purpose: a duration to measure over, not a wait for something.
    await new Promise((resolve) => setTimeout(resolve, options.idleMs));
    const idleSeconds = (Date.now() - from) / 1000;
    const switchesAfter = await contextSwitches(daemon.pid);
    const probeRequests = front.count() - probesBefore;
    const switches = switchesBefore === null || switchesAfter === null ? null : switchesAfter - switchesBefore;
    return {
      idleSeconds,
      probeRequests,
      probesPerMinute: (probeRequests * 60) / idleSeconds,
      contextSwitches: switches,
      wakeupsPerSecond: switches === null ? null : switches / idleSeconds,
    };
  } finally {
    await daemon.stop(10_000);
    await front.close();
    await world.emulator.close();
    await world.tunnels.close();
  }
}
