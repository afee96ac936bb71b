import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../src/median/index.js';
import { runCliInProcess, spawnCli } from '../helpers/cli-harness.js';
import { isEvent, useTempDir } from '../helpers/e2e-world.js';
import { useHttpServer } from '../helpers/use-http-server.js';

const BOMBS = 20;
const DECODED_BYTES = 32 * 1024 * 1024;
const RECORD_LIMIT = 1024 * 1024;

/** One request with node:http, the answer's bytes as they came (fetch would decode the bomb in this process). */
function send(url: string, method: string, body?: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/**
 * A route that answers every call with a gzip bomb: ~32 KB on the wire,
 * 32 MiB decoded (a dev server compromised, or one that compresses a runaway
 * answer). Twenty at once must not stall the proxy (its own health answer
 * stays quick) nor blow up its memory: the recorded copy is decoded off the
 * event loop and only up to the recording limit.
 */
describe('gzip bombs from the route', () => {
  it('20 parallel bombs: health answers on time, RSS stays bounded, each record cut at the limit', { timeout: 90_000 }, async () => {
    const bomb = gzipSync(`{"result":"${'x'.repeat(DECODED_BYTES)}"}`, { level: 9 });
    const route = await useHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
        res.end(bomb);
      });
    });
    const dataDir = await useTempDir('median-dev-bomb-');
    const cli = spawnCli(['start', '--json', '--no-tui', '--tunnel', 'none', '--port', '0', '--no-env-file', '--no-inspector', '--target', route.url, '--data-dir', dataDir], {
      cwd: dataDir,
    });
    const proxy = (await cli.waitForEvent((e) => isEvent(e, 'proxy'))).url as string;
    const pid = cli.child.pid!;
    // A warm-up call: the first one loads the code paths, so the baseline counts them.
    await send(`${proxy}/api/median`, 'POST', '{}');
    const baseline = await rssMb(pid);

    let isLoading = true;
    const healthMs: number[] = [];
    let peakRss = baseline;
    // Two watchers: the proxy's own answer (its event loop), and its memory as the kernel sees it, sampled apart.
    const watching = Promise.all([
      (async () => {
        while (isLoading) {
          const started = performance.now();
          await send(`${proxy}/__median-dev/health`, 'GET');
          healthMs.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })(),
      (async () => {
        while (isLoading) {
          peakRss = Math.max(peakRss, await rssMb(pid));
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })(),
    ]);
    const answers = await Promise.all(
      Array.from({ length: BOMBS }, async (_, i) => {
        // The caller gets the bytes as they came: the bomb, still compressed.
        const answer = await send(`${proxy}/api/median`, 'POST', JSON.stringify({ tool: 'x', toolCallId: `bomb_${i}`, input: {}, context: {} }));
        return answer.bytes;
      }),
    );
    expect(answers).toEqual(Array.from({ length: BOMBS }, () => bomb.length));
    // Stored once its `call` event is out. Waited for on the daemon's own lines: reading 20 records of 1 MiB
    // here, while the health watcher runs, would stall this process's loop and count that against the proxy.
    await vi.waitFor(
      () => expect(cli.events().filter((e) => isEvent(e, 'call') && String(e.toolCallId).startsWith('bomb_'))).toHaveLength(BOMBS),
      { timeout: 30_000, interval: 100 },
    );
    isLoading = false;
    await watching;
    const run = await runCliInProcess(['calls', '--json', '--data-dir', dataDir, '--no-env-file', '--limit', '100'], { cwd: dataDir, env: {} });
    const records = (JSON.parse(run.stdout) as CallRecord[]).filter((r) => r.toolCallId.startsWith('bomb_'));
    expect(records).toHaveLength(BOMBS);

    for (const record of records) {
      expect(record.response?.truncated).toBe(true);
      expect(record.response?.body.length).toBe(RECORD_LIMIT);
      expect(record.response?.body.startsWith('{"result":"xxx')).toBe(true);
    }
    // Measured on a 2-core machine at load 20: 0.2–1.1 s with the fix, 4.3–7.6 s without (a 20 × 32 MiB decode in one turn).
    expect(Math.max(...healthMs)).toBeLessThan(2_500);
    expect(peakRss - baseline).toBeLessThan(200);
    // Still serving.
    expect((await send(`${proxy}/__median-dev/health`, 'GET')).status).toBe(200);
  });
});
