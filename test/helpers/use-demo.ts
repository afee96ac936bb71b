import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runCliInProcess, spawnCli, type SpawnedCli } from './cli-harness.js';
import { useTempDir } from './e2e-world.js';
import { useTeardown } from './use-teardown.js';
import { MEDIAN_CALL_LIMITS } from '../../src/median/verdict-types.js';

export interface DemoRun {
  cli: SpawnedCli;
  dataDir: string;
  /** The proxy's URL (requests there are recorded). */
  proxyUrl: string;
  /** The inspector's URL and its one-time link, as printed. */
  inspectorUrl: string;
  link: string;
}

/**
 * The built `median-dev demo --json` (emulator, loopback tunnel, example
 * route, daemon, an agent calling every `intervalMs`), stopped with SIGINT
 * when the test ends; resolves once the endpoint synced.
 */
export async function useDemo(options: { intervalMs?: number; entry?: string } = {}): Promise<DemoRun> {
  const dataDir = await useTempDir('median-dev-browser-demo-');
  // The tunnel's name comes from the project folder: a project as a reader would name it (the README's screenshots show it).
  const projectDir = join(dataDir, 'my-shop');
  await mkdir(projectDir);
  const cli = spawnCli(['demo', '--json', '--no-tui', '--inspector-port', '0', '--data-dir', dataDir], {
    env: { MEDIAN_DEV_DEMO_INTERVAL_MS: String(options.intervalMs ?? 300) },
    cwd: projectDir,
    ...(options.entry ? { entry: options.entry } : {}),
  });
  useTeardown(cli, (c) => c.stop('SIGINT'));
  const inspector = await cli.waitForEvent((e) => e.event === 'inspector', 30_000);
  const proxy = await cli.waitForEvent((e) => e.event === 'proxy', 30_000);
  await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced', 30_000);
  return { cli, dataDir, proxyUrl: proxy.url as string, inspectorUrl: inspector.url as string, link: inspector.link as string };
}

/**
 * Plays the teammate for the demo's next high-risk call, as a user would: the
 * demo holds it for approval (Median's `high` risk) and prints the approve
 * command; that command, run as printed with `as` for its quoted default name, lets the
 * call through. Resolves with the approval id, which is the call's toolCallId.
 */
export async function approveNextHeldCall(demo: DemoRun, as = 'A teammate'): Promise<string> {
  const waiting = await demo.cli.waitForEvent((e) => e.event === 'log' && String(e.message).includes("waits for a teammate's approval"), 60_000);
  const message = String(waiting.message);
  const id = /\b(apr_[0-9a-f]{24})\b/.exec(message)?.[1];
  if (!id) throw new Error(`The demo's approval message names no request id: ${message}`);
  const printed = message.slice(message.indexOf(' emulate approve ') + 1);
  if (!printed.includes(' --as "A teammate" ')) throw new Error(`The demo's approve command names no teammate where expected: ${message}`);
  const argv = [...printed.slice(0, printed.indexOf(' --as ')).split(' '), '--as', as, ...printed.slice(printed.indexOf(' --as "A teammate" ') + ' --as "A teammate" '.length).split(' ')];
  let approved = await runCliInProcess(argv, { env: {} });
  // Median runs at most three tools at once in a conversation: the demo's own calls may hold them (its slowReport runs
  // for up to Median's call timeout, so three of them hold it that long). The hint says to wait for one to finish and
  // run it again, as a user would: until twice the call timeout has passed, by then every run that held it ended.
  const giveUpAt = Date.now() + 2 * MEDIAN_CALL_LIMITS.timeoutMs;
  while (approved.code !== 0 && approved.stderr.includes('[too_many_running]') && Date.now() < giveUpAt) {
    const calls = demo.cli.events().filter((e) => e.event === 'call');
    await demo.cli.waitForEvent((e) => e.event === 'call' && !calls.includes(e), 30_000);
    approved = await runCliInProcess(argv, { env: {} });
  }
  if (approved.code !== 0) throw new Error(`emulate approve ${id} failed: ${approved.stderr}`);
  await demo.cli.waitForEvent((e) => e.event === 'call' && e.toolCallId === id, 30_000);
  return id;
}
