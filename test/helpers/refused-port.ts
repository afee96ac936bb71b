import { connect } from 'node:net';

/**
 * Ports below 1024 are never handed out for a listen on port 0, and no test
 * listens on one: a connection to one of these on 127.0.0.1 is refused for
 * as long as the suite runs (9 is discard, 1 tcpmux; neither runs here).
 */
const CANDIDATES = [9, 1, 4, 6, 8];

let found: Promise<number> | undefined;

/**
 * A loopback port nothing listens on, now and for the whole test. A port
 * taken from a server that listened on port 0 and then closed is the next
 * listener's to take: with several test files at once another file's server
 * got one (a full run saw that server's 404 where a refused connection was
 * expected). Checked once to refuse; a machine where every candidate answers
 * is said, not silently used.
 */
export function refusedPort(): Promise<number> {
  found ??= (async () => {
    for (const port of CANDIDATES) if (await isRefused(port)) return port;
    throw new Error(`Something listens on 127.0.0.1 at every port of ${CANDIDATES.join(', ')}: the tests need one that refuses.`);
  })();
  return found;
}

/** `http://127.0.0.1:<refused port>`. */
export async function refusedOrigin(): Promise<string> {
  return `http://127.0.0.1:${await refusedPort()}`;
}

function isRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(2_000);
    const done = (isRefusedNow: boolean) => {
      socket.destroy();
      resolve(isRefusedNow);
    };
    socket.once('connect', () => done(false));
    socket.once('timeout', () => done(false));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
  });
}
