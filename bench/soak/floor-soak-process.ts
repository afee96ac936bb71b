/**
 * A floor of the soak as its own process, started the way the bin starts
 * the daemon (the node options of its shebang line, bench/bin-node-args.ts)
 * by floor-soak-run.ts with one JSON argument:
 *   - `record`: the `record` floor of floor-tunnel.ts (median-dev's own
 *     tunnel client handing its sockets to Node's HTTP server, a raw-socket
 *     relay to the dev server, the daemon's recording modules storing every
 *     call); it reopens a dropped tunnel itself, as the daemon does;
 *   - `stock`: the stock `localtunnel` npm client piping to the dev server.
 *     It does not register again once the server forgot it (it retries the
 *     refused port for ever), so on a refused connection this process opens
 *     a new client, as a user re-running `lt` would.
 * Prints `{"event":"ready"}` once its tunnel is open; stops on SIGINT.
 */
import localtunnel from 'localtunnel';
import { startFloorTunnel } from '../floor-tunnel.js';

export type FloorVariant = 'record' | 'stock';

export interface FloorSoakSpec {
  variant: FloorVariant;
  tunnelHost: string;
  /** The dev server's origin. */
  target: string;
  subdomain: string;
  medianKey: string;
}

type Closer = () => Promise<void>;

async function startStock(spec: FloorSoakSpec): Promise<Closer> {
  const port = Number(new URL(spec.target).port);
  let isClosed = false;
  let current: localtunnel.Tunnel | undefined;
  let reopening = false;
  const open = async (): Promise<void> => {
    const tunnel = await localtunnel({ port, host: spec.tunnelHost, subdomain: spec.subdomain });
    current = tunnel;
    tunnel.on('error', (error: Error) => {
      // "connection refused: host:port": the server forgot this client; its cluster would retry that port for ever.
      if (isClosed || reopening || current !== tunnel || !/connection refused/.test(error.message)) return;
      reopening = true;
      tunnel.close();
      void reopen();
    });
  };
  const reopen = async (): Promise<void> => {
    for (let attempt = 0; !isClosed; attempt += 1) {
      try {
        await open();
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
      }
    }
    reopening = false;
  };
  await open();
  return async () => {
    isClosed = true;
    current?.close();
  };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as FloorSoakSpec;
  // The record floor runs with the bin's node options (floor-soak-run.ts), as the daemon does.
  const close: Closer =
    spec.variant === 'record'
      ? (await startFloorTunnel({ mode: 'record', tunnelHost: spec.tunnelHost, target: spec.target, subdomain: spec.subdomain, medianKey: spec.medianKey })).close
      : await startStock(spec);
  let isStopping = false;
  process.on('SIGINT', () => {
    if (isStopping) return;
    isStopping = true;
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  process.stdout.write(`${JSON.stringify({ event: 'ready' })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
