import { WebSocket, WebSocketServer } from 'ws';
import type { TestServer } from './use-http-server.js';
import { useTeardown } from './use-teardown.js';

/** Makes `app` echo every WebSocket message back as `echo:<message>`, until the test ends. */
export function useWebSocketEcho(app: TestServer): void {
  const wss = useTeardown(new WebSocketServer({ server: app.server }), (w) => new Promise((r) => w.close(r)));
  wss.on('connection', (socket) => socket.on('message', (data) => socket.send(`echo:${String(data)}`)));
}

/** Opens a WebSocket to 127.0.0.1:`port` as `host` (a tunnel hostname), sends `hello`, resolves with the reply. */
export async function echoThrough(port: number, host: string, path = '/live'): Promise<string> {
  const ws = useTeardown(new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers: { host } }), (w) => w.terminate());
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const reply = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
  ws.send('hello');
  return reply;
}
