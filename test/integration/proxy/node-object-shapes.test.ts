import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { ROUTE, send, useRecordingProxy } from './proxy-harness.js';

/**
 * The proxy keeps what it knows of a request, its answer and an upstream
 * socket beside them (WeakMaps), never as properties added to Node's objects.
 * An added property gives an object a map (hidden class) of its own; once no
 * object has that map (the daemon idle for a while) a full GC drops it, and
 * every optimised function that had seen it, Node's HTTP server and streams
 * and our proxy, is thrown away at once and compiled again under the next
 * calls (V8's "weak objects" deoptimisation, seen in bursts of ~130 functions
 * in a daemon under the tunnel bench). The same key list, in the same order,
 * as a plain object of the same kind means the same map.
 */

interface ServerRequestStart {
  request: IncomingMessage;
  response: ServerResponse;
  server: Server;
}

function useChannel<T>(name: string, onMessage: (message: T) => void): void {
  const listener = (message: unknown) => onMessage(message as T);
  subscribe(name, listener);
  onTestFinished(() => void unsubscribe(name, listener));
}

const keysOf = (value: object): string[] => Reflect.ownKeys(value).map(String);

describe('the Node objects a call passes through', () => {
  it('keep the shape Node gave them: the request, its answer and the upstream socket carry no property of ours', async () => {
    let atTarget: { request: IncomingMessage; response: ServerResponse } | undefined;
    const target = await useHttpServer((req, res) => {
      atTarget = { request: req, response: res };
      req.resume();
      req.on('end', () => res.end('{"ok":true}'));
    });
    const atProxy: ServerRequestStart[] = [];
    useChannel<ServerRequestStart>('http.server.request.start', (message) => {
      if (message.server !== target.server) atProxy.push(message);
    });
    const clientSockets: Socket[] = [];
    useChannel<{ socket: Socket }>('net.client.socket', ({ socket }) => clientSockets.push(socket));
    const { proxy, waitForRecords } = await useRecordingProxy({ target: target.url });

    const answer = await send(`${proxy.url}${ROUTE}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"orderNumber":"A1001"}' });
    expect(answer.status).toBe(200);
    await waitForRecords(1);

    expect(atProxy).toHaveLength(1);
    expect(atTarget).toBeDefined();
    expect(keysOf(atProxy[0]!.request)).toEqual(keysOf(atTarget!.request));
    expect(keysOf(atProxy[0]!.response)).toEqual(keysOf(atTarget!.response));

    const targetPort = Number(new URL(target.url).port);
    const upstream = clientSockets.filter((socket) => socket.remotePort === targetPort);
    expect(upstream).toHaveLength(1); // the proxy's own connection to the dev server
    // A socket of Node's, used through Node's API as the pool uses one (an idle timeout; its address read, as the filter above did).
    const plain = connect(targetPort, '127.0.0.1');
    onTestFinished(() => void plain.destroy());
    await once(plain, 'connect');
    plain.setTimeout(4_000);
    expect(plain.remotePort).toBe(targetPort);
    expect(keysOf(upstream[0]!)).toEqual(keysOf(plain));
  });
});
