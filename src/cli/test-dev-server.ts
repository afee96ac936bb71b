import { randomBytes } from 'node:crypto';
import { startChildProcess, type ChildRunner } from '../child/child-runner.js';
import { waitForRoute } from '../endpoints/route-readiness.js';
import { UserError } from '../shared/errors.js';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** How long `test -- <cmd>` waits for the route to answer (a cold `next dev` compiles for a while). */
export const DEV_SERVER_READY_MS = 60_000;
const KEPT_OUTPUT_LINES = 40;

/** A key for this run alone: the dev server `test` starts gets it, so no real key is needed (or sent) in CI. */
export function throwawayMedianKey(): string {
  const bytes = randomBytes(40);
  return `median_key_${Array.from(bytes, (b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('')}`;
}

export interface TestDevServer {
  /** The dev server's last lines of output (shown when a run fails to start). */
  lastLines(): string[];
  close(): Promise<void>;
}

/**
 * Starts the dev server for one `test` run, with the throwaway key as its
 * MEDIAN_KEY, and resolves once the route answers (as `start` waits); stops
 * it (SIGTERM, then SIGKILL after the grace period) on `close()`. Rejects
 * with `route_not_ready`, the dev server's last lines in the message, when it
 * exits first or the route does not answer in time.
 */
export async function startTestDevServer(options: {
  command: string[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  medianKey: string;
  routeUrl: string;
  signal?: AbortSignal;
  readyTimeoutMs?: number;
}): Promise<TestDevServer> {
  const lines: string[] = [];
  const child: ChildRunner = await startChildProcess({
    command: options.command,
    cwd: options.cwd,
    // The throwaway key wins over the environment's; a tool secret would override it in the route, so none is passed.
    env: { ...options.env, MEDIAN_KEY: options.medianKey, MEDIAN_TOOL_SECRET: undefined },
    stopGraceMs: 3_000,
    onOutput: (line) => {
      lines.push(line);
      if (lines.length > KEPT_OUTPUT_LINES) lines.shift();
    },
  });
  const server: TestDevServer = { lastLines: () => [...lines], close: () => child.close() };
  const isReady = await waitForRoute({
    url: options.routeUrl,
    timeoutMs: options.readyTimeoutMs ?? DEV_SERVER_READY_MS,
    isWorthWaiting: () => child.state.state !== 'exited',
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (isReady) return server;
  const state = child.state;
  await child.close();
  const why = state.state === 'exited' ? `exited (code ${state.code ?? state.signal}) before the route answered` : `did not answer at ${options.routeUrl} within ${Math.round((options.readyTimeoutMs ?? DEV_SERVER_READY_MS) / 1000)} s`;
  const tail = lines.slice(-15).map((l) => `  | ${l}`).join('\n');
  throw new UserError('route_not_ready', `The dev server (${options.command.join(' ')}) ${why}.${tail ? `\nIts last output:\n${tail}` : ''}`, {
    hint: 'Check that the command starts your app on the --target origin (its port too) and serves the route at --route.',
  });
}
