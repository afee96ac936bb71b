import { expect } from 'vitest';
import type { SpawnedCli } from '../helpers/cli-harness.js';
import { isEvent, waitForEventAfter, type E2eWorld } from '../helpers/e2e-world.js';

export interface HostnameLoss {
  newUrl: string;
  droppedAt: number;
  /** When the tunnel reopened under the new name, and when it said it was down (if it did). */
  openAt: number;
  downAt: number | null;
  /** The new URL's `synced`. */
  syncedAt: number;
}

/**
 * Loses the tunnel's hostname as localtunnel does (the server refuses the
 * name and drops the client, so it reopens under another) and waits for the
 * endpoint to sync at the new URL.
 */
export async function loseHostname(world: E2eWorld, cli: SpawnedCli, toolsUrl: string, timeoutMs: number): Promise<HostnameLoss> {
  const mark = cli.events().length;
  const name = new URL(toolsUrl).hostname.split('.')[0]!;
  const droppedAt = Date.now();
  world.tunnelServer.refuseName(name);
  world.tunnelServer.dropClient(name, { forget: true });
  const healed = await waitForEventAfter(cli, mark, 'endpoint', { action: 'synced' }, timeoutMs);
  const newUrl = healed.url as string;
  expect(newUrl).not.toBe(toolsUrl);
  expect(healed.error ?? null).toBeNull();
  const after = cli.events().slice(mark);
  const at = (state: string) => {
    const e = after.find((event) => isEvent(event, 'tunnel', { state }));
    return e ? Date.parse(e.at as string) : null;
  };
  return { newUrl, droppedAt, openAt: at('open')!, downAt: at('down'), syncedAt: Date.parse(healed.at as string) };
}
