// The example route as `start` runs it (its own Node process, dist/examples/tools-route/server.js):
// its connect, the POST to Median on the path of every start's first sync, goes over node:http, which a
// server has loaded already, not `fetch`, whose first call compiles undici (~35 ms on a 2-core machine).
// process.moduleLoadList, read at exit (test/helpers/record-built-ins.cjs), says what it loaded.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { EXAMPLE_ROUTE, useTempDir } from '../../helpers/e2e-world.js';
import { readBody, useHttpServer } from '../../helpers/use-http-server.js';

const RECORD_BUILT_INS = fileURLToPath(new URL('../../helpers/record-built-ins.cjs', import.meta.url));
const KEY = `median_key_${'e'.repeat(40)}`;
const TOOLS_URL = 'https://shop-dev.loca.lt/api/median';
const UNDICI = 'internal/deps/undici/undici';

describe('the example route process', () => {
  it('connects to Median without loading undici (fetch)', async () => {
    const dir = await useTempDir('median-dev-example-connect-');
    const posted: string[] = [];
    // Median's API answering a connect as tool-endpoint-reference.txt shows (201 and the endpoint).
    const median = await useHttpServer(async (req: IncomingMessage, res: ServerResponse) => {
      posted.push(`${req.method} ${req.url} ${(await readBody(req)).toString('utf8')}`);
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ endpoint: { id: 'ep_1', url: TOOLS_URL, status: 'pending', error: null, tools: [], createdAt: '2025-01-01T00:00:00Z', syncedAt: null } }));
    });
    const builtInsFile = join(dir, 'built-ins.txt');
    const child = spawn(process.execPath, ['--require', RECORD_BUILT_INS, EXAMPLE_ROUTE], {
      cwd: dir,
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', MEDIAN_KEY: KEY, MEDIAN_TOOLS_URL: TOOLS_URL, MEDIAN_API_URL: median.url, MEDIAN_DEV_TEST_BUILT_INS_FILE: builtInsFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    const listening = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
        if (url) resolve(url);
      });
      child.on('exit', (code) => reject(new Error(`the route exited ${code} before listening`)));
      setTimeout(() => reject(new Error('the route did not listen within 10 s')), 10_000).unref();
    });
    const routeUrl = await listening;

    const answer = await fetch(routeUrl, { headers: { authorization: `Bearer ${KEY}` } });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ connected: true, endpoint: TOOLS_URL });
    expect(posted).toEqual([`POST /v1/tool-endpoints ${JSON.stringify({ url: TOOLS_URL })}`]);

    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    const builtIns = (await readFile(builtInsFile, 'utf8')).split('\n').flatMap((line) => (line.startsWith('NativeModule ') ? [line.slice('NativeModule '.length)] : []));
    expect(builtIns).toContain('http'); // the list was read: the route serves with it
    expect(builtIns).not.toContain(UNDICI);
  }, 30_000);
});
