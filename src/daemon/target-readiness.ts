import { connect } from 'node:net';

function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Waits until the dev server accepts connections (after a child restart),
 * so Median's sync does not hit a server that is still starting. Resolves
 * false when it did not come up in time; never throws.
 */
export async function waitForTarget(target: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<boolean> {
  const url = new URL(target);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const hosts = url.hostname === 'localhost' ? ['127.0.0.1', '::1'] : [url.hostname.replace(/^\[(.*)\]$/, '$1')];
  const deadline = Date.now() + options.timeoutMs;
  let wait = 50;
  while (!options.signal?.aborted && Date.now() < deadline) {
    for (const host of hosts) if (await canConnect(host, port, 1_000)) return true;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      timer.unref();
    });
    wait = Math.min(wait * 2, 500);
  }
  return false;
}
