/**
 * Start-up: the built CLI's `median-dev start --json` in the default
 * configuration (the localtunnel tunnel to the loopback tunnel server, the
 * inspector, the example route as its dev server, the Median emulator as
 * its API), from the spawn to its first `--json` event and to `endpoint
 * synced`; one fresh daemon, project, emulator and tunnel server per round, each round next to a
 * `node -e 0`, so the load of the moment shows in the ratio.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchChildEnv } from '../child-env.js';
import { runTimed } from '../timed-process.js';
import { isEvent, startDaemon, startWorld } from './tunnel-heals.js';

export interface StartUpResult {
  rounds: number;
  firstEventMs: number[];
  syncedMs: number[];
  nodeMs: number[];
}

export async function runStartUp(options: { root: string; rounds: number }): Promise<StartUpResult> {
  const result: StartUpResult = { rounds: options.rounds, firstEventMs: [], syncedMs: [], nodeMs: [] };
  for (let round = 0; round < options.rounds; round += 1) {
    // A fresh Median (emulator) and tunnel server per round, as a first start meets them.
    const world = await startWorld();
    try {
      result.nodeMs.push((await runTimed(process.execPath, ['-e', '0'], { cwd: options.root, env: benchChildEnv(), timeoutMs: 30_000 })).wallMs);
      const daemon = await startDaemon(world, join(options.root, `start-up-${round}`));
      try {
        await daemon.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
        const syncedAt = performance.now();
        result.firstEventMs.push((daemon.firstEventAtMs() ?? syncedAt) - daemon.spawnedAtMs);
        result.syncedMs.push(syncedAt - daemon.spawnedAtMs);
      } finally {
        await daemon.stop(10_000);
      }
    } finally {
      await world.emulator.close();
      await world.tunnels.close();
    }
  }
  return result;
}
