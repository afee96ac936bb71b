import type { TunnelProgram } from '../platform/index.js';
import type { TunnelConnection } from './tunnel-provider.js';

/**
 * The open tunnel of a provider that runs a program (cloudflared, ssh): lost
 * when the program exits by itself, closed by stopping it (its process group,
 * SIGTERM then SIGKILL). The program's own reconnects are its business; the
 * health probe notices one that is alive but carries nothing.
 */
export function programConnection(program: TunnelProgram, url: string, lostMessage: string, extra: { subdomain?: string } = {}): TunnelConnection {
  let isClosed = false;
  let lostReason: string | undefined;
  const listeners: Array<(reason: string) => void> = [];
  void program.exited.then((exit) => {
    if (isClosed) return;
    lostReason = `${lostMessage} (${exit.signal ?? `code ${exit.code}`})`;
    for (const listener of listeners) listener(lostReason);
  });
  return {
    url,
    subdomain: extra.subdomain,
    socketCount: () => undefined,
    bytesReceived: () => undefined,
    onLost(listener) {
      listeners.push(listener);
      if (lostReason !== undefined) {
        const reason = lostReason;
        queueMicrotask(() => {
          if (!isClosed) listener(reason);
        });
      }
    },
    async close() {
      isClosed = true;
      await program.stop();
    },
  };
}
