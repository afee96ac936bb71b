import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The compiled example route's modules, which the fake serves its route with. */
const ROUTE_DIR = fileURLToPath(new URL('../../dist/examples/tools-route/', import.meta.url));

/**
 * A stand-in for `next dev` that copies what Next.js 16.4 was observed to do
 * (a real `next dev` on this machine, and @next/env's loader read):
 * - it loads `.env.development.local`, `.env.local`, `.env.development`,
 *   `.env` from its folder, the first file that sets a name wins;
 * - a name already in its environment at start is never taken from a file
 *   (@next/env's `initialEnv`), on the first load and on every reload;
 * - it watches the folder and, when one of those files changes, reloads them
 *   in the same process and prints `Reload env: .env.local` (two spaces
 *   first, as Next does); the next request reads the new values;
 * - with FAKE_NEXT_500S=N (the framework suite's `next dev --webpack`): while
 *   it compiles, after its start and after each env reload, a request gets a
 *   500 with a plain-text body (the error Next hit reading its half-written
 *   manifest); N requests stand in for that second. It prints
 *   `compiling: answered 500` for each.
 * It serves the route protocol with the example route at /api/median on
 * PORT (HOST), reading MEDIAN_TOOLS_URL, MEDIAN_KEY and MEDIAN_API_URL at
 * request time as a route handler does, and prints
 * `env MEDIAN_TOOLS_URL=<value> pid=<pid>` after every load.
 */
function fakeNextSource(routeDir: string): string {
  const module = (name: string) => JSON.stringify(pathToFileURL(join(routeDir, name)).href);
  return `#!/usr/bin/env node
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const FILES = ['.env.development.local', '.env.local', '.env.development', '.env'];
const initialEnv = { ...process.env };
let contents = {};
let compilingLeft = 0;

function parse(text) {
  const vars = {};
  for (const line of text.split(/\\r?\\n/)) {
    const match = /^\\s*(?:export\\s+)?([\\w.-]+)\\s*=\\s*(.*?)\\s*$/.exec(line);
    if (!match) continue;
    let value = match[2];
    if (/^(['"]).*\\1$/.test(value)) value = value.slice(1, -1);
    vars[match[1]] = value;
  }
  return vars;
}

function load(isReload) {
  for (const name of Object.keys(process.env)) if (!(name in initialEnv)) delete process.env[name];
  Object.assign(process.env, initialEnv);
  const seen = {};
  for (const file of FILES) {
    let text;
    try { text = fs.readFileSync(file, 'utf8'); } catch { continue; }
    if (isReload && contents[file] !== text) console.log('  Reload env: ' + file);
    seen[file] = text;
    for (const [name, value] of Object.entries(parse(text))) if (process.env[name] === undefined) process.env[name] = value;
  }
  contents = seen;
  compilingLeft = Number(initialEnv.FAKE_NEXT_500S || 0);
  console.log('env MEDIAN_TOOLS_URL=' + process.env.MEDIAN_TOOLS_URL + ' pid=' + process.pid);
}

load(false);
let pending;
const watcher = fs.watch('.', (type, name) => {
  if (!FILES.includes(String(name))) return;
  clearTimeout(pending);
  pending = setTimeout(() => load(true), 20);
});

Promise.all([import(${module('create-route.js')}), import(${module('demo-tools.js')})]).then(([{ createToolRoute }, { createDemoTools }]) => {
  const tools = createDemoTools();
  const server = http.createServer((req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/api/median') return res.writeHead(404).end();
    if (compilingLeft > 0) {
      compilingLeft -= 1;
      console.log('compiling: answered 500');
      return res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('SyntaxError: Unexpected end of JSON input');
    }
    const env = process.env;
    createToolRoute({ key: env.MEDIAN_KEY, toolsUrl: env.MEDIAN_TOOLS_URL, apiUrl: env.MEDIAN_API_URL, tools })(req, res);
  });
  server.listen(Number(process.env.PORT), process.env.HOST || '127.0.0.1', () => console.log('ready on ' + process.env.PORT));
  const stop = () => { watcher.close(); server.close(); server.closeAllConnections(); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
});
`;
}

/**
 * Puts the fake at `node_modules/next/dist/bin/next` in `projectDir` (where
 * Next's own bin is) with a package.json whose `dev` script is `next dev`.
 * Returns the command that runs it directly: `node …/next dev`.
 */
export async function installFakeNextDev(projectDir: string): Promise<string[]> {
  const bin = join(projectDir, 'node_modules', 'next', 'dist', 'bin', 'next');
  await mkdir(join(projectDir, 'node_modules', 'next', 'dist', 'bin'), { recursive: true });
  await writeFile(bin, fakeNextSource(ROUTE_DIR));
  await chmod(bin, 0o755);
  await writeFile(join(projectDir, 'package.json'), `${JSON.stringify({ name: 'fake-next-app', private: true, scripts: { dev: 'next dev' } }, null, 2)}\n`);
  return [process.execPath, bin, 'dev'];
}
