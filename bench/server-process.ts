/**
 * Child-process entry for the servers under load, so the load generator,
 * the proxy and the target each have their own event loop (and the proxy
 * can run under --cpu-prof). Started by server-handle.ts with one JSON
 * argument (ServerSpec); talks over the IPC channel:
 *   child → parent  {type:'ready', url} | {type:'settled', stats, cpuUs} | {type:'failed', message}
 *   parent → child  {type:'settle'} | {type:'stop'}
 * It exits once stopped (or when the parent goes away).
 */
import { BENCH_ROUTE } from './signed-calls.js';
import { startBenchTarget, type BenchServer } from './bench-target.js';
import { startBareProxy } from './bare-proxy.js';
import localtunnel from 'localtunnel';
import { startRecordingProxy, type RecordingProxy } from '../src/proxy/index.js';
import { startTunnelServer, type SocketReuse } from '../src/tunnel-server/index.js';
import { createLocaltunnelProvider, startTunnel } from '../src/tunnel/index.js';
import { openRecorder } from '../src/recorder/index.js';
import { deriveToolSecret, type CallRecord } from '../src/median/index.js';
import { startFloorTunnel, type FloorMode } from './floor-tunnel.js';
import { openRawRecordWriter, type RawRecordWriter } from './raw-record-writer.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export type ServerSpec =
  | { role: 'target' }
  | { role: 'bare-proxy'; target: string }
  | {
      role: 'recording-proxy';
      target: string;
      dataDir: string;
      medianKey: string;
      /**
       * `drop`: records are built and counted but not stored (to tell the proxy's cost from the recorder's);
       * `raw`: each record's JSON line appended as it is, one write per turn (raw-record-writer.ts: the floor
       * of storing it). Default `store`: the real recorder.
       */
      records?: 'store' | 'drop' | 'raw';
    }
  /** The loopback localtunnel server; its url is what clients pass as the tunnel host. */
  | { role: 'tunnel-server'; socketReuse?: SocketReuse; domain?: string }
  /** The stock `localtunnel` npm client, tunnelling to `target` straight; its url is the tunnel's public URL. */
  | { role: 'stock-tunnel'; tunnelHost: string; target: string; subdomain: string }
  /** median-dev's tunnel with nothing but an answering server (or a pipe to the target) behind it: floor-tunnel.ts. */
  | { role: 'floor-tunnel'; mode: FloorMode; tunnelHost: string; target: string; subdomain: string; medianKey: string }
  /**
   * median-dev's tunnel into its recording proxy (records stored), as the
   * daemon wires them; `handOff: false` pipes each tunnel socket into a
   * second loopback connection to the proxy, as before issue 10.
   */
  | {
      role: 'median-tunnel';
      tunnelHost: string;
      target: string;
      dataDir: string;
      medianKey: string;
      subdomain: string;
      handOff: boolean;
    };

export interface RecordingStats {
  recorded: number;
  appendFailures: number;
  signatures: Record<string, number>;
  verdicts: Record<string, number>;
  /** What the recorder says it holds (retention applied). */
  storeRecords: number;
  storeBytes: number;
}

export interface Settled {
  /** The recording proxy's counters; null for the other roles. */
  stats: RecordingStats | null;
  /** This process's CPU time so far (user + system, all threads), µs. */
  cpuUs: number;
  /** The stock client: tunnel sockets it has opened so far (each a TCP connect to the tunnel server). */
  connects?: number;
}

export type ServerMessage = { type: 'ready'; url: string } | ({ type: 'settled' } & Settled) | { type: 'failed'; message: string };
export type ParentMessage = { type: 'settle' } | { type: 'stop' };

interface Running {
  url: string;
  settle(): Promise<RecordingStats | null>;
  connects?(): number;
  close(): Promise<void>;
}

const SETTLE_TIMEOUT_MS = 30_000;

async function startRecording(spec: Pick<Extract<ServerSpec, { role: 'recording-proxy' }>, 'target' | 'dataDir' | 'medianKey' | 'records'>): Promise<Running & { proxy: RecordingProxy }> {
  // As the daemon does it: the key is masked in every record.
  const recorder = spec.records === 'drop' || spec.records === 'raw' ? undefined : await openRecorder({ dataDir: spec.dataDir, secrets: [spec.medianKey] });
  const raw = spec.records === 'raw' ? await rawWriterIn(spec.dataDir) : undefined;
  const stats: RecordingStats = { recorded: 0, appendFailures: 0, signatures: {}, verdicts: {}, storeRecords: 0, storeBytes: 0 };
  let appending = 0;
  let onIdle: (() => void) | undefined;
  const onRecord = async (record: CallRecord): Promise<void> => {
    stats.recorded += 1;
    stats.signatures[record.signature] = (stats.signatures[record.signature] ?? 0) + 1;
    stats.verdicts[record.verdict.kind] = (stats.verdicts[record.verdict.kind] ?? 0) + 1;
    const store = recorder ?? raw;
    if (!store) return;
    appending += 1;
    try {
      await store.append(record);
    } catch {
      stats.appendFailures += 1; // counted and reported; the proxy keeps going like the daemon's sink does
    } finally {
      appending -= 1;
      if (appending === 0) onIdle?.();
    }
  };
  const proxy = await startRecordingProxy({
    target: spec.target,
    route: BENCH_ROUTE,
    secret: deriveToolSecret(spec.medianKey),
    onRecord,
  });
  return {
    url: proxy.url,
    proxy,
    async settle() {
      if (appending > 0) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`${appending} appends still pending after ${SETTLE_TIMEOUT_MS} ms`)), SETTLE_TIMEOUT_MS);
          onIdle = () => {
            clearTimeout(timer);
            onIdle = undefined;
            resolve();
          };
        });
      }
      const store = recorder?.stats() ?? { records: 0, bytes: 0 };
      return { ...stats, storeRecords: store.records, storeBytes: store.bytes };
    },
    async close() {
      await proxy.close();
      await recorder?.close();
      raw?.close();
    },
  };
}

async function rawWriterIn(dir: string): Promise<RawRecordWriter> {
  await mkdir(dir, { recursive: true });
  return openRawRecordWriter(join(dir, 'calls.jsonl'));
}

async function startMedianTunnel(spec: Extract<ServerSpec, { role: 'median-tunnel' }>): Promise<Running> {
  const recording = await startRecording(spec);
  const { proxy } = recording;
  const tunnel = await startTunnel({
    provider: createLocaltunnelProvider({ host: spec.tunnelHost }),
    localPort: proxy.port,
    subdomain: spec.subdomain,
    nameRetryMs: 0,
    ...(spec.handOff ? { handOff: (socket) => proxy.acceptConnection(socket) } : {}),
  });
  return {
    url: tunnel.url ?? '',
    settle: () => recording.settle(),
    async close() {
      await tunnel.close();
      await recording.close();
    },
  };
}

async function start(spec: ServerSpec): Promise<Running> {
  let server: BenchServer;
  switch (spec.role) {
    case 'target':
      server = await startBenchTarget();
      break;
    case 'bare-proxy':
      server = await startBareProxy({ target: spec.target });
      break;
    case 'recording-proxy':
      return startRecording(spec);
    case 'tunnel-server': {
      const tunnelServer = await startTunnelServer({ ...(spec.socketReuse ? { socketReuse: spec.socketReuse } : {}), ...(spec.domain ? { domain: spec.domain } : {}) });
      return { url: tunnelServer.url, settle: async () => null, close: () => tunnelServer.close() };
    }
    case 'stock-tunnel': {
      const target = new URL(spec.target);
      // As users run it (`lt --port 3000`): no local_host, so no Host-rewriting transform; it connects to localhost.
      const tunnel = await localtunnel({ port: Number(target.port), host: spec.tunnelHost, subdomain: spec.subdomain });
      tunnel.on('error', () => undefined); // a bench run reports failed requests; the client's own errors would crash it
      // localtunnel 2.0.2's Tunnel keeps its TunnelCluster there; 'open' is each new tunnel socket connected.
      let connects = 0;
      (tunnel as unknown as { tunnelCluster: { on(event: 'open', listener: () => void): void } }).tunnelCluster.on('open', () => (connects += 1));
      return { url: tunnel.url, settle: async () => null, connects: () => connects, close: async () => void tunnel.close() };
    }
    case 'median-tunnel':
      return startMedianTunnel(spec);
    case 'floor-tunnel': {
      // A floor is a median-dev design: it runs with the bin's node options (tunnel-world.ts).
      const floor = await startFloorTunnel(spec);
      return { url: floor.url, settle: async () => null, close: () => floor.close() };
    }
    default: {
      const never: never = spec;
      throw new Error(`unknown role ${JSON.stringify(never)}`);
    }
  }
  return { url: server.url, settle: async () => null, close: () => server.close() };
}

function send(message: ServerMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as ServerSpec;
  const running = await start(spec);
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await running.close();
    // After the parent went away the channel is already gone, and disconnecting again throws.
    if (process.connected) process.disconnect?.();
  };
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'settle') {
      running.settle().then(
        (stats) => {
          const cpu = process.cpuUsage();
          send({ type: 'settled', stats, cpuUs: cpu.user + cpu.system, ...(running.connects ? { connects: running.connects() } : {}) });
        },
        (error: unknown) => send({ type: 'failed', message: String(error) }),
      );
    } else if (message.type === 'stop') {
      void stop();
    }
  });
  // The parent went away without saying stop: do not linger.
  process.once('disconnect', () => void stop());
  send({ type: 'ready', url: running.url });
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? error.stack ?? error.message : String(error) });
  process.exitCode = 1;
  if (process.connected) process.disconnect?.();
});
