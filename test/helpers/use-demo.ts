import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnCli, type SpawnedCli } from './cli-harness.js';
import { useTempDir } from './e2e-world.js';
import { useTeardown } from './use-teardown.js';

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
export async function useDemo(options: { intervalMs?: number } = {}): Promise<DemoRun> {
  const dataDir = await useTempDir('median-dev-browser-demo-');
  // The tunnel's name comes from the project folder: a project as a reader would name it (the README's screenshots show it).
  const projectDir = join(dataDir, 'my-shop');
  await mkdir(projectDir);
  const cli = spawnCli(['demo', '--json', '--no-tui', '--inspector-port', '0', '--data-dir', dataDir], {
    env: { MEDIAN_DEV_DEMO_INTERVAL_MS: String(options.intervalMs ?? 300) },
    cwd: projectDir,
  });
  useTeardown(cli, (c) => c.stop('SIGINT'));
  const inspector = await cli.waitForEvent((e) => e.event === 'inspector', 30_000);
  const proxy = await cli.waitForEvent((e) => e.event === 'proxy', 30_000);
  await cli.waitForEvent((e) => e.event === 'endpoint' && e.action === 'synced', 30_000);
  return { cli, dataDir, proxyUrl: proxy.url as string, inspectorUrl: inspector.url as string, link: inspector.link as string };
}
