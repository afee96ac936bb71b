import { describe, expect, it } from 'vitest';
import type { DaemonSnapshot } from '../../../src/events/index.js';
import type { InspectorStatus } from '../../../src/events/inspector-api.js';
import { makeSnapshot } from '../../helpers/record-fixtures.js';
import { openSession, rawRequest, useInspectorServer } from '../../helpers/use-inspector-server.js';

const OLD = 'https://calm-otter.loca.lt/api/median';
const NEW = 'https://brave-lynx.loca.lt/api/median';

describe('inspector server: the status of a heal under way', () => {
  it('GET /api/status carries the heal (state, target) and the timeline entry at its step, then the heal done', async () => {
    let snapshot: DaemonSnapshot = makeSnapshot([]);
    const world = await useInspectorServer([], { snapshot: () => snapshot });
    const session = await openSession(world.server);
    const status = async (): Promise<InspectorStatus> => JSON.parse((await rawRequest(world.server.port, { path: '/api/status', headers: { ...session } })).body) as InspectorStatus;

    world.emit({ event: 'tools-url', at: '2026-01-05T14:00:00.000Z', url: OLD, envFile: null });
    world.emit({ event: 'endpoint', at: '2026-01-05T14:00:01.000Z', action: 'synced', id: 'ep_1', url: OLD });
    world.emit({ event: 'heal', at: '2026-01-05T14:02:10.000Z', state: 'changing', url: NEW });
    world.emit({ event: 'tools-url', at: '2026-01-05T14:02:10.010Z', url: NEW, envFile: null });
    world.emit({ event: 'heal', at: '2026-01-05T14:02:11.000Z', state: 'syncing', url: NEW });
    // The daemon's hub holds the heal in the snapshot the inspector reads.
    snapshot = makeSnapshot([], { heal: { state: 'syncing', url: NEW, startedAt: '2026-01-05T14:02:10.000Z' } });

    const during = await status();
    expect(during.daemon.heal).toEqual({ state: 'syncing', url: NEW, startedAt: '2026-01-05T14:02:10.000Z' });
    expect(during.timeline).toEqual([expect.objectContaining({ kind: 'endpoint-heal', outcome: 'open', step: 'syncing', detail: `to ${NEW}`, startedAt: '2026-01-05T14:02:10.000Z' })]);

    world.emit({ event: 'endpoint', at: '2026-01-05T14:02:12.000Z', action: 'synced', id: 'ep_1', url: NEW });
    world.emit({ event: 'heal', at: '2026-01-05T14:02:12.001Z', state: 'done', url: NEW, durationMs: 2001, synced: true });
    snapshot = makeSnapshot([], { heal: null });
    const after = await status();
    expect(after.daemon.heal).toBeNull();
    expect(after.timeline).toEqual([{ kind: 'endpoint-heal', startedAt: '2026-01-05T14:02:10.000Z', endedAt: '2026-01-05T14:02:12.000Z', durationMs: 2000, outcome: 'ok', detail: `synced ${NEW}` }]);
  });
});
