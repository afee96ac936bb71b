import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  connectControl,
  connectToDaemon,
  readControlFile,
} from '../../../src/control/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { makeSnapshot, rejectionOf, useControlServer, useDataDir } from './use-control-server.js';
import { freeTestPort as freePort } from '../../helpers/free-test-port.js';

async function useSilentTcpServer(): Promise<Server> {
  const server = createServer(() => {
    /* Accepts and never answers: a hung daemon. */
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return useTeardown(server, (s) => {
    s.close();
    // The refused-to-answer sockets would keep the server open.
    return new Promise<void>((resolve) => {
      s.getConnections(() => resolve());
    });
  });
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid as number;
}


describe('control.json', () => {
  it('is written 0600 with the connection facts and removed on close', async () => {
    const dataDir = await useDataDir();
    const { server } = await useControlServer({
      dataDir,
      pid: 4321,
      instanceId: 'instance-x',
      proxyUrl: 'http://127.0.0.1:5151',
      now: () => new Date('2025-03-04T05:06:07.000Z'),
    });
    const path = join(dataDir, 'control.json');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      port: server.port,
      token: server.token,
      pid: 4321,
      instanceId: 'instance-x',
      startedAt: '2025-03-04T05:06:07.000Z',
      proxyUrl: 'http://127.0.0.1:5151',
    });
    expect(await readControlFile(dataDir, { isAlive: () => true })).toMatchObject({ port: server.port, path, isStale: false });

    await server.close();
    expect(await readControlFile(dataDir)).toBeUndefined();
  });

  it('is left alone on close when another daemon wrote it since', async () => {
    const { server, dataDir } = await useControlServer({ instanceId: 'old' });
    const path = join(dataDir, 'control.json');
    const theirs = { ...JSON.parse(await readFile(path, 'utf8')), instanceId: 'new', port: 1234 };
    await writeFile(path, JSON.stringify(theirs));
    await server.close();
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ instanceId: 'new' });
  });

  it('is marked stale when its process is gone, and then no daemon is running', async () => {
    const { server, dataDir } = await useControlServer({ pid: await deadPid() });
    expect(await readControlFile(dataDir)).toMatchObject({ port: server.port, isStale: true });
    const error = await rejectionOf(connectToDaemon(dataDir));
    expect(error).toMatchObject({ code: 'daemon_not_running', hint: 'Start it with `median-dev start`' });
    expect(server.clientCount()).toBe(0);
  });

  it('is read as invalid when it is not a control file', async () => {
    const dataDir = await useDataDir();
    await writeFile(join(dataDir, 'control.json'), '{"port":"nope"}');
    expect(await rejectionOf(readControlFile(dataDir))).toMatchObject({ code: 'control_file_invalid' });
  });
});

describe('connectToDaemon', () => {
  it('connects through control.json and gets the snapshot', async () => {
    const { server, dataDir } = await useControlServer({ snapshot: () => makeSnapshot({ callCount: 9 }) });
    const client = useTeardown(await connectToDaemon(dataDir), (c) => c.close());
    expect(client.snapshot.callCount).toBe(9);
    await vi.waitFor(() => expect(server.clientCount()).toBe(1));
  });

  it('says daemon_not_running without a control file', async () => {
    const error = await rejectionOf(connectToDaemon(await useDataDir()));
    expect(error).toMatchObject({ code: 'daemon_not_running', hint: 'Start it with `median-dev start`' });
  });

  it('says daemon_not_running when nothing listens on the recorded port', async () => {
    const dataDir = await useDataDir();
    const port = await freePort();
    await writeFile(
      join(dataDir, 'control.json'),
      JSON.stringify({ port, token: 'a'.repeat(64), pid: process.pid, instanceId: 'i', startedAt: '', proxyUrl: '' }),
    );
    expect(await rejectionOf(connectToDaemon(dataDir))).toMatchObject({ code: 'daemon_not_running' });
  });

  it('times out on a daemon that accepts but never answers, and can be aborted', async () => {
    const silent = await useSilentTcpServer();
    const { port } = silent.address() as { port: number };
    const timedOut = await rejectionOf(connectControl({ port, token: 'a'.repeat(64), timeoutMs: 150 }));
    expect(timedOut).toMatchObject({ code: 'control_timeout' });

    const controller = new AbortController();
    const connecting = connectControl({ port, token: 'a'.repeat(64), signal: controller.signal });
    controller.abort(new Error('user pressed q'));
    expect(await rejectionOf(connecting)).toMatchObject({ message: 'user pressed q' });
  });
});
