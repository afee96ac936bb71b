import type { Config } from '../config/resolve-config.js';
import { connectControl } from '../control/control-client.js';
import { readControlFile, type ControlFileInfo } from '../control/control-file.js';
import type { DaemonSnapshot } from '../events/daemon-events.js';
import { cloudUrlProblem } from '../median/sync-rules.js';
import { systemClock } from '../shared/clock.js';
import { errorCode } from '../shared/errors.js';
import { HEALTH_PATH } from '../shared/health-check.js';
import { createFetchHealthProbe } from '../tunnel/health-probe.js';
import { createPublicFetch } from '../tunnel/public-url-fetch.js';
import { probeOnce } from '../tunnel/probe-once.js';
import type { AddCheck } from './doctor-check.js';
import { fetchManifest } from './fetch-manifest.js';

type Add = AddCheck;

/** How long the running daemon has to send its snapshot, and the public URL to answer its health check. */
const DAEMON_ANSWER_MS = 5_000;
const HEALTH_ANSWER_MS = 5_000;

/** The running daemon's live state: undefined when none runs for the data dir (a `daemon` check says why). */
async function askDaemon(config: Config, add: Add): Promise<{ control: ControlFileInfo; snapshot: DaemonSnapshot } | undefined> {
  const control = await readControlFile(config.dataDir).catch(() => undefined);
  const notRunning = (): undefined => {
    add({ check: 'daemon', status: 'warn', message: 'median-dev is not running for this data dir.', fix: 'Run `median-dev start -- <your dev server command>`.' });
    return undefined;
  };
  if (!control || control.isStale) return notRunning();
  try {
    const client = await connectControl({ port: control.port, token: control.token, timeoutMs: DAEMON_ANSWER_MS, heartbeatTimeoutMs: 0 });
    const snapshot = client.snapshot;
    await client.close();
    add({ check: 'daemon', status: 'ok', message: `median-dev is running (pid ${control.pid}, proxy ${snapshot.proxyUrl ?? control.proxyUrl}).` });
    return { control, snapshot };
  } catch (error) {
    // As findRunningDaemon: a daemon too busy to answer is there but stuck; any other failure means what listens is not it.
    if (errorCode(error) !== 'control_timeout') return notRunning();
    add({
      check: 'daemon',
      status: 'fail',
      message: `median-dev (pid ${control.pid}) does not answer on its control channel within ${DAEMON_ANSWER_MS / 1000} s.`,
      fix: 'It may be stuck: stop it (Ctrl-C in its terminal) and run `median-dev start` again.',
    });
    return undefined;
  }
}

/**
 * The daemon and its tunnel as they are now: the running daemon's own state
 * first (a tunnel it knows is down, or that never opened), then its public
 * URL end to end: the health check through the tunnel must come back with
 * this daemon's marker, and a signed manifest read of the tools URL through
 * the tunnel must pass Median's sync rules, as Median's own sync would.
 * The public URL is reached as the daemon's probe reaches it (by its name,
 * else through the tunnel server), so a self-hosted server's `.test` names
 * are checked too.
 */
export async function checkDaemonAndTunnel(config: Config, add: Add, secret: Uint8Array | undefined): Promise<void> {
  const live = await askDaemon(config, add);
  const toolsUrl = live?.snapshot.toolsUrl ?? config.state.toolsUrl;
  const cloud = toolsUrl ? cloudUrlProblem(toolsUrl) : undefined;
  if (cloud) add({ check: 'tools-url', status: 'warn', message: cloud, fix: 'Use the tunnel (the default), or --public-url with a public https origin.' });
  if (!live) return;
  const { tunnel, tunnelHost } = live.snapshot;
  const server = tunnelHost ? ` (tunnel server ${tunnelHost})` : '';
  if (tunnel.state !== 'open' || !tunnel.url) {
    const why = tunnel.reason ? `: ${tunnel.reason}` : '';
    if (tunnel.state === 'connecting') {
      add({ check: 'tunnel', status: 'warn', message: `The tunnel is still opening${server}.`, fix: 'Wait a moment and run `median-dev doctor` again.' });
    } else if (tunnel.url === null) {
      add({ check: 'tunnel', status: 'fail', message: `The tunnel has not opened${server}${why}.`, fix: `Median cannot reach the route until it opens; median-dev keeps trying. Check --tunnel-host${tunnelHost ? ` (${tunnelHost})` : ''}, or use your own tunnel with --tunnel none --public-url <origin>.` });
    } else {
      add({ check: 'tunnel', status: 'fail', message: `The tunnel ${tunnel.url} is ${tunnel.state}${why}.`, fix: `Median cannot reach the route meanwhile; median-dev reopens it by itself. If it stays down, check the tunnel server${tunnelHost ? ` (${tunnelHost})` : ''}.` });
    }
    return;
  }
  await checkEndToEnd(tunnel.url, toolsUrl, tunnelHost ?? undefined, live.control.instanceId, add, secret);
}

async function checkEndToEnd(origin: string, toolsUrl: string | undefined, tunnelHost: string | undefined, instanceId: string, add: Add, secret: Uint8Array | undefined): Promise<void> {
  const reach = tunnelHost ? { tunnelHost } : {};
  const probe = createFetchHealthProbe({ instanceId, ...reach });
  const health = await probeOnce(probe, `${origin}${HEALTH_PATH}`, { timeoutMs: HEALTH_ANSWER_MS, clock: systemClock }, () => undefined);
  if (health.kind === 'unreachable') {
    add({ check: 'tunnel', status: 'warn', message: `${origin} cannot be reached from this machine (DNS or network); that proves nothing about the tunnel.` });
    return;
  }
  if (health.kind === 'no-answer') {
    add({ check: 'tunnel', status: 'fail', message: `${origin} takes the connection but gives no answer within ${HEALTH_ANSWER_MS / 1000} s: the tunnel is wedged.`, fix: 'median-dev notices and reopens it within seconds; if it stays so, restart `median-dev start`.' });
    return;
  }
  if (!health.isFromProxy) {
    add({ check: 'tunnel', status: 'fail', message: `${origin} answers ${health.status}, not this median-dev: the tunnel is down or points elsewhere.`, fix: 'median-dev reopens it by itself; if it stays down, restart `median-dev start`.' });
    return;
  }
  if (!toolsUrl || !secret) {
    add({ check: 'tunnel', status: 'ok', message: `${origin} reaches this median-dev.` });
    return;
  }
  // The way Median's sync goes: the public tools URL, through the tunnel and the proxy, to the route.
  const fetched = await fetchManifest(toolsUrl, secret, { fetch: createPublicFetch(reach) });
  if (fetched.judgement.ok) {
    const count = fetched.judgement.manifest.tools.length;
    add({ check: 'tunnel', status: 'ok', message: `${toolsUrl} reaches this median-dev and, through it, the route: a signed manifest read there answers ${count} tool${count === 1 ? '' : 's'}.` });
    return;
  }
  add({ check: 'tunnel', status: 'fail', message: `${origin} reaches this median-dev, but a signed manifest read of ${toolsUrl} through it would fail Median's sync: ${fetched.judgement.message}`, fix: 'Check that the dev server answers behind median-dev (the `route` check), then `median-dev manifest`.' });
}
