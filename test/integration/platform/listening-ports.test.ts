import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { findListeningPorts, realPortLookupSystem } from '../../../src/platform/listening-ports.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** A node process listening on port 0 under a shell (a grandchild, as `npm run dev` starts it); its port on stdout. */
async function listeningGrandchild(): Promise<{ shellPid: number; port: number }> {
  const script = "require('node:net').createServer().listen(0, '127.0.0.1', function () { console.log(this.address().port); });";
  const shell = spawn('sh', ['-c', `"${process.execPath}" -e "${script}"; exit 0`], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  useTeardown(shell, (child) => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  });
  const [chunk] = (await once(shell.stdout, 'data')) as [Buffer];
  return { shellPid: shell.pid as number, port: Number(chunk.toString().trim()) };
}

describe.runIf(process.platform === 'linux')('the ports a process tree listens on (Linux, /proc)', () => {
  it("finds a grandchild's listening port from the shell's pid, and not another process's", async () => {
    const other = useTeardown(createServer().listen(0, '127.0.0.1'), (server) => server.close());
    await once(other, 'listening');
    const { shellPid, port } = await listeningGrandchild();

    const sockets = await findListeningPorts(shellPid, realPortLookupSystem({ PATH: process.env.PATH }));

    expect(sockets).toContainEqual({ address: '127.0.0.1', port });
    const otherPort = (other.address() as { port: number }).port;
    expect(sockets.map((socket) => socket.port)).not.toContain(otherPort);
  });

  it('finds nothing for a process that listens on nothing', async () => {
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    useTeardown(sleeper, (child) => child.kill('SIGKILL'));
    await once(sleeper, 'spawn');

    expect(await findListeningPorts(sleeper.pid as number, realPortLookupSystem({ PATH: process.env.PATH }))).toEqual([]);
  });
});
