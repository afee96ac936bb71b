import type { ServerResponse } from 'node:http';
import type { LiveMessage } from '../events/inspector-api.js';
import { createWorkInterval } from '../shared/index.js';

/**
 * The page's live channel: a streamed answer to `POST /api/live`, one JSON
 * message a line. A POST, so the browser always sends its Origin (which the
 * server checked); a stream, so no WebSocket library is needed. A client that
 * stops reading is dropped rather than buffered without end.
 */
export interface LiveChannel {
  open(res: ServerResponse, first: LiveMessage): void;
  broadcast(message: LiveMessage): void;
  clientCount(): number;
  /** Ends every stream. Idempotent. */
  close(): void;
}

const KEEPALIVE_MS = 15_000;
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export function createLiveChannel(headers: Readonly<Record<string, string>>): LiveChannel {
  const clients = new Set<ServerResponse>();
  let isClosed = false;
  // Only while someone listens: an idle daemon is not woken for nobody.
  const keepalive = createWorkInterval(KEEPALIVE_MS, () => clients.size > 0, () => {
    for (const res of clients) res.write('\n');
  });

  function send(res: ServerResponse, line: string): void {
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      clients.delete(res);
      res.destroy();
      return;
    }
    res.write(line);
  }

  return {
    open(res, first) {
      if (isClosed) {
        res.writeHead(503, { ...headers, 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'daemon_stopping', message: 'The median-dev daemon is stopping.' } }));
        return;
      }
      res.writeHead(200, { ...headers, 'content-type': 'application/x-ndjson; charset=utf-8', 'x-accel-buffering': 'no' });
      res.flushHeaders();
      clients.add(res);
      keepalive.start();
      res.on('close', () => clients.delete(res));
      send(res, `${JSON.stringify(first)}\n`);
    },
    broadcast(message) {
      if (clients.size === 0) return;
      const line = `${JSON.stringify(message)}\n`;
      for (const res of clients) send(res, line);
    },
    clientCount: () => clients.size,
    close() {
      if (isClosed) return;
      isClosed = true;
      keepalive.stop();
      for (const res of clients) res.end();
      clients.clear();
    },
  };
}
