import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessAlive } from '../../src/platform/index.js';
import { freeTestPort } from './free-test-port.js';

/** The fake `cloudflared` executable (test/helpers/fakes/cloudflared); see its header for what it copies. */
export const FAKE_CLOUDFLARED = fileURLToPath(new URL('./fakes/cloudflared', import.meta.url));
/** The folder to put first on PATH so `cloudflared` is the fake. */
export const FAKES_DIR = fileURLToPath(new URL('./fakes', import.meta.url));

/** The pids a fake tunnel program wrote to its pid file (one line per run). */
export async function pidsIn(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

/** Whether any of the pids is still a live process. */
export function anyAlive(pids: readonly number[]): boolean {
  return pids.some((pid) => isProcessAlive(pid));
}

/** The environment the fake cloudflared reads: its edge port, its pid file, its arguments' file (a JSON line per run), a mode. */
export async function fakeCloudflaredEnv(dir: string, mode?: string): Promise<{ env: Record<string, string>; edgePort: number; pidFile: string; argsFile: string }> {
  const edgePort = await freeTestPort();
  const pidFile = join(dir, 'cloudflared.pids');
  const argsFile = join(dir, 'cloudflared.args');
  await writeFile(pidFile, '');
  await writeFile(argsFile, '');
  return {
    edgePort,
    pidFile,
    argsFile,
    env: { FAKE_CLOUDFLARED_EDGE_PORT: String(edgePort), FAKE_CLOUDFLARED_PIDS: pidFile, FAKE_CLOUDFLARED_ARGS: argsFile, ...(mode ? { FAKE_CLOUDFLARED_MODE: mode } : {}) },
  };
}

/** The arguments each run of the fake cloudflared was started with, in order. */
export async function argsIn(argsFile: string): Promise<string[][]> {
  const text = await readFile(argsFile, 'utf8');
  return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as string[]);
}

/** GET through a fake edge on 127.0.0.1:`port` with the public hostname in Host, as a client of the tunnel would arrive. */
export function getThroughEdge(port: number, publicUrl: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host: new URL(publicUrl).host }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
