/**
 * A dev server that misbehaves on request, for the e2e dev-server fault tests
 * (run compiled: `node dist/test/helpers/fault-route-server.js`). It serves
 * the example route (its demo tools, slowReport's "second" lasting
 * FAULT_ROUTE_MS_PER_SECOND ms) plus three tools:
 *
 * - `crashNow`: the process exits (code 3) in the middle of the call.
 * - `resetAnswer`: the connection is destroyed, `before` any answer or
 *   `during` one (after the status line and part of the body).
 * - `whoAmI`: answers `{pid}` of the process that served it.
 *
 * With FAULT_ROUTE_SUPERVISE=1 it is a supervisor, like `next dev` or
 * `tsx watch`: it runs the route in a worker process, and each SIGUSR2 stops
 * the worker, or starts a new one (another PID) when none runs, as a file
 * change would. The worker prints `fault-route: worker <pid> listening`.
 *
 * Environment as for the example route: PORT, HOST, MEDIAN_KEY,
 * MEDIAN_TOOLS_URL, MEDIAN_API_URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ROUTE_PATH, createDemoTools, createToolRoute, defineTool, p } from '../../examples/tools-route/index.js';

const env = process.env;

async function runWorker(): Promise<void> {
  const current = new AsyncLocalStorage<ServerResponse>();
  const faultTools = [
    defineTool({
      name: 'crashNow',
      description: 'Crash the dev server in the middle of the call.',
      risk: 'low',
      input: {},
      execute: () => {
        console.error('fault-route: crashing mid-call');
        process.exit(3);
      },
    }),
    defineTool({
      name: 'resetAnswer',
      description: 'Reset the connection before or during the answer.',
      risk: 'low',
      input: { when: p.enum(['before', 'during']) },
      execute: ({ when }) => {
        const res = current.getStore();
        if (!res) throw new Error('no response in this call');
        if (when === 'during') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"result":{"rows":[1,2,');
        }
        // Flushed first, so the head and the part of the body leave before the reset.
        setImmediate(() => res.socket?.destroy());
        return new Promise<never>(() => undefined);
      },
    }),
    defineTool({
      name: 'whoAmI',
      description: 'Say which process served the call.',
      risk: 'low',
      input: {},
      execute: () => ({ pid: process.pid }),
    }),
  ];
  const route = createToolRoute({
    key: env.MEDIAN_KEY,
    toolsUrl: env.MEDIAN_TOOLS_URL,
    apiUrl: env.MEDIAN_API_URL,
    tools: [...createDemoTools({ msPerSecond: Number(env.FAULT_ROUTE_MS_PER_SECOND ?? '100') }), ...faultTools],
  });
  // Each request runs in its own context, so resetAnswer finds its response.
  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://route.invalid').pathname.replace(/\/+$/, '') === DEFAULT_ROUTE_PATH) {
      current.run(res, () => route(req, res));
      return;
    }
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"not the route"}}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(env.PORT ?? '3000'), env.HOST || '127.0.0.1', resolve);
  });
  console.log(`fault-route: worker ${process.pid} listening`);
  const stop = (): void => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function runSupervisor(): void {
  const self = fileURLToPath(import.meta.url);
  let worker: ChildProcess | undefined;
  const start = (): void => {
    const next = spawn(process.execPath, [self], { env: { ...env, FAULT_ROUTE_SUPERVISE: '' }, stdio: 'inherit' });
    worker = next;
    next.once('exit', (code, signal) => {
      console.log(`fault-route: worker ${next.pid} exited (${signal ?? code})`);
      if (worker === next) worker = undefined;
    });
  };
  process.on('SIGUSR2', () => {
    if (worker) worker.kill('SIGTERM');
    else start();
  });
  // Signal listeners do not keep a process alive; between workers this timer does.
  const alive = setInterval(() => undefined, 60_000);
  const shutdown = (): void => {
    clearInterval(alive);
    worker?.kill('SIGTERM');
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  start();
}

if (env.FAULT_ROUTE_SUPERVISE === '1') runSupervisor();
else await runWorker();
