import { describe, expect, it, vi } from 'vitest';
import { connectControl, startControlServer } from '../../../src/control/index.js';
import { makeSnapshot, rejectionOf, useControlClient, useControlServer, useDataDir } from './use-control-server.js';

/** Sockets and servers of this worker; the first test of the file sees none of another test's. */
function tcpResources(): number {
  return process.getActiveResourcesInfo().filter((name) => name.startsWith('TCP')).length;
}

describe('close', () => {
  it('closes connected clients, fails their pending commands and leaves no socket open', async () => {
    const before = tcpResources();
    const dataDir = await useDataDir();
    const server = await startControlServer({
      dataDir,
      pid: process.pid,
      instanceId: 'closing',
      proxyUrl: 'http://127.0.0.1:4141',
      snapshot: () => makeSnapshot(),
      handleCommand: () => new Promise(() => {}),
    });
    const first = await connectControl({ port: server.port, token: server.token });
    const second = await connectControl({ port: server.port, token: server.token });
    const reasons: string[] = [];
    first.onClose((reason) => reasons.push(reason));
    second.onClose((reason) => reasons.push(reason));
    await vi.waitFor(() => expect(server.clientCount()).toBe(2));
    const pendingCommand = rejectionOf(first.send({ command: 'sync' }));

    await server.close();
    expect(server.clientCount()).toBe(0);
    expect(await pendingCommand).toMatchObject({ code: 'control_closed' });
    await vi.waitFor(() => expect(reasons).toHaveLength(2));
    await server.close(); // idempotent
    await Promise.all([first.close(), second.close()]);

    expect(await rejectionOf(connectControl({ port: server.port, token: server.token }))).toMatchObject({
      code: 'daemon_not_running',
    });
    await vi.waitFor(() => expect(tcpResources()).toBe(before));
  });

  it('lets a client close itself and tells its listeners once', async () => {
    const { server } = await useControlServer();
    const client = await useControlClient(server);
    const reasons: string[] = [];
    client.onClose((reason) => reasons.push(reason));
    await Promise.all([client.close(), client.close()]);
    expect(reasons).toHaveLength(1);
    await vi.waitFor(() => expect(server.clientCount()).toBe(0));
    expect(await rejectionOf(client.send({ command: 'sync' }))).toMatchObject({ code: 'control_closed' });
    const late = await new Promise<string>((resolve) => client.onClose(resolve));
    expect(late).toBe(reasons[0]);
  });
});
