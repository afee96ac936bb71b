/**
 * A fake dev server written as raw TCP on 127.0.0.1 port 0: it reads each
 * request (its head, then a Content-Length body) and writes back exactly the
 * bytes a test gives it, well-formed or not. It copies what a real dev server
 * does on the wire (Node's or any framework's HTTP/1.1 server on a kept
 * connection, one answer per request in order), and what a broken or hostile
 * one can do that Node's server never would: two lengths, a length that lies,
 * obs-fold, bytes after the answer, a close in the middle.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { useTeardown } from './use-teardown.js';

/** What to do for one request: bytes to write, then whether to close. */
export interface RawAnswer {
  bytes: string | Buffer;
  /** Close the connection once written (after a whole or a cut answer). */
  close?: boolean;
}

export interface RawAnswerServer {
  url: string;
  /** Connections accepted so far. */
  connections: Socket[];
  /** Request heads received, in order (latin1). */
  heads: string[];
  close(): Promise<void>;
}

/** `answer(index, head)` is asked for each request, `index` counting from 0 over all connections. */
export async function useRawAnswerServer(answer: (index: number, head: string) => RawAnswer): Promise<RawAnswerServer> {
  const connections: Socket[] = [];
  const heads: string[] = [];
  const server: Server = createServer((socket) => {
    connections.push(socket);
    socket.on('error', () => undefined); // A proxy that refuses an answer resets the connection: expected here.
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        pending = pending.subarray(end + 4 + length);
        heads.push(head);
        const reply = answer(heads.length - 1, head);
        socket.write(reply.bytes);
        if (reply.close) socket.end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const handle: RawAnswerServer = {
    url: `http://127.0.0.1:${port}`,
    connections,
    heads,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const socket of connections) socket.destroy();
        server.close(() => resolve());
      });
      return closing;
    },
  };
  return useTeardown(handle, (h) => h.close());
}
