import { createServer } from 'node:net';

/**
 * Below every OS's ephemeral range (Linux 32768–60999, macOS and Windows
 * 49152–65535), where `listen(0)` and outgoing connections take their ports.
 */
const RANGE = { from: 20_000, to: 32_000 } as const;

/** Ports this test process handed out already (so two of its tests never get the same one). */
const handedOut = new Set<number>();

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port for a process that must be told its port before it starts
 * (a dev server behind `--target`). `findFreePort`'s listen-on-0 port is in
 * the ephemeral range, so under load a proxy started on port 0, or any
 * outgoing connection, could take it before the dev server binds it; a port
 * from below that range can only be taken by someone who names it.
 */
export async function freeTestPort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = RANGE.from + Math.floor(Math.random() * (RANGE.to - RANGE.from));
    if (handedOut.has(port) || !(await canListen(port, host))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`No free loopback port between ${RANGE.from} and ${RANGE.to} after 200 tries.`);
}
