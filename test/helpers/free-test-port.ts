import { createServer } from 'node:net';

/**
 * Below every OS's ephemeral range (Linux 32768–60999, macOS and Windows
 * 49152–65535), where `listen(0)` and outgoing connections take their ports.
 */
export const TEST_PORT_RANGE = { from: 20_000, to: 32_000 } as const;

/**
 * The range is cut into this many slices, one per vitest worker
 * (`VITEST_POOL_ID`, 1…maxWorkers, unique among the workers running at
 * once, threads and forks alike): two test files running at once never get
 * the same port. Ids past this count share slices (more workers than that
 * need a bigger range).
 */
export const TEST_PORT_SLICES = 16;

/** The ports worker `poolId` hands out: its own slice of the range. */
export function testPortSlice(poolId: number): { from: number; to: number } {
  const size = Math.floor((TEST_PORT_RANGE.to - TEST_PORT_RANGE.from) / TEST_PORT_SLICES);
  const index = (Number.isInteger(poolId) && poolId > 0 ? poolId - 1 : 0) % TEST_PORT_SLICES;
  const from = TEST_PORT_RANGE.from + index * size;
  return { from, to: from + size };
}

/** The next port of this worker's slice to try; starts at random, so another run's worker with the same id starts elsewhere. */
let cursor: number | undefined;
/** Ports this worker handed out already (so two of its tests never get the same one), until the slice comes round again. */
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
 * from below that range can only be taken by someone who names it, and the
 * other workers of the run name ports of their own slices. A port something
 * else listens on is skipped.
 */
export async function freeTestPort(host = '127.0.0.1'): Promise<number> {
  const slice = testPortSlice(Number(process.env.VITEST_POOL_ID ?? 1));
  const size = slice.to - slice.from;
  cursor ??= slice.from + Math.floor(Math.random() * size);
  for (let attempt = 0; attempt < size; attempt++) {
    if (cursor < slice.from || cursor >= slice.to) {
      // Round the slice once: the tests that had its ports are over (a worker runs one file at a time).
      cursor = slice.from;
      handedOut.clear();
    }
    const port = cursor;
    cursor += 1;
    if (handedOut.has(port) || !(await canListen(port, host))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`No free loopback port between ${slice.from} and ${slice.to} (this worker's slice).`);
}
