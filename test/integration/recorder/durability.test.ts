import { constants } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { createCallStore } from '../../../src/recorder/index.js';
import { DISK_SYNC_BOUND_MS } from '../../../src/recorder/background-sync.js';
import { makeRecord } from '../../helpers/make-record.js';
import { createManualClock } from '../../helpers/manual-clock.js';
import { openSegmentFlags } from '../../helpers/open-file-flags.js';
import { useDataDir, useRecorder } from './use-data-dir.js';

const isLinux = process.platform === 'linux';

describe('default durability: written to the OS, synced in the background', () => {
  it('resolves concurrent appends without any gather window, on a clock that never moves', async () => {
    const dataDir = await useDataDir();
    const clock = createManualClock();
    const startedAt = clock.now();
    const recorder = await useRecorder({ dataDir, clock });
    // With disk durability, every pair after the first would wait 10 ms of this clock for its group commit.
    for (let i = 0; i < 50; i += 1) {
      await Promise.all([recorder.append(makeRecord({ n: 2 * i })), recorder.append(makeRecord({ n: 2 * i + 1 }))]);
    }
    expect(clock.now()).toBe(startedAt);
    expect(await createCallStore(dataDir).count()).toBe(100);
    // Segments are opened without O_DSYNC.
    if (isLinux) expect(openSegmentFlags(process.pid, dataDir).filter((flags) => (flags & constants.O_DSYNC) !== 0)).toEqual([]);
  });

  it('syncs within the bound after a write, and never when nothing was written', async () => {
    const dataDir = await useDataDir();
    const clock = createManualClock();
    const recorder = await useRecorder({ dataDir, clock });
    expect(clock.pendingTimers()).toBe(0);
    await recorder.append(makeRecord({ n: 1 }));
    const written = recorder.stats().bytes;
    expect(recorder.stats()).toMatchObject({ unsyncedBytes: written, lastSyncAt: undefined });
    expect(clock.nextTimerIn()).toBe(DISK_SYNC_BOUND_MS);

    // More writes inside the bound share the one sync that is due.
    clock.advance(DISK_SYNC_BOUND_MS - 1);
    await recorder.append(makeRecord({ n: 2 }));
    expect(clock.pendingTimers()).toBe(1);
    expect(recorder.stats().unsyncedBytes).toBe(recorder.stats().bytes);

    clock.advance(1);
    const syncedAt = clock.now();
    await vi.waitFor(() => expect(recorder.stats()).toMatchObject({ unsyncedBytes: 0, lastSyncAt: syncedAt }), { timeout: 5_000 });

    // Nothing written since: no timer, no sync, however long.
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(10 * DISK_SYNC_BOUND_MS);
    expect(recorder.stats().lastSyncAt).toBe(syncedAt);

    // The next write makes the next sync due, a bound later.
    await recorder.append(makeRecord({ n: 3 }));
    expect(clock.nextTimerIn()).toBe(DISK_SYNC_BOUND_MS);
    clock.advance(DISK_SYNC_BOUND_MS);
    await vi.waitFor(() => expect(recorder.stats()).toMatchObject({ unsyncedBytes: 0, lastSyncAt: syncedAt + 11 * DISK_SYNC_BOUND_MS }), { timeout: 5_000 });
  });

  it('syncs the live segment on close() and leaves no timer', async () => {
    const dataDir = await useDataDir();
    const clock = createManualClock();
    const recorder = await useRecorder({ dataDir, clock });
    await recorder.append(makeRecord({ n: 1 }));
    expect(clock.pendingTimers()).toBe(1);
    await recorder.close();
    expect(recorder.stats()).toMatchObject({ unsyncedBytes: 0, lastSyncAt: clock.now() });
    expect(clock.pendingTimers()).toBe(0);
    if (isLinux) expect(openSegmentFlags(process.pid, dataDir)).toEqual([]);
    await expect(recorder.append(makeRecord({ n: 2 }))).rejects.toMatchObject({ code: 'recorder_closed' });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('syncs a full segment before the next one is opened', async () => {
    const dataDir = await useDataDir();
    const clock = createManualClock();
    const recorder = await useRecorder({ dataDir, clock, segmentMaxRecords: 2 });
    await recorder.append(makeRecord({ n: 1 }));
    await recorder.append(makeRecord({ n: 2 }));
    expect(recorder.stats().lastSyncAt).toBeUndefined();
    const first = recorder.stats().bytes;
    // The third record starts segment 2: segment 1 is synced as it is closed; only the new bytes wait.
    await recorder.append(makeRecord({ n: 3 }));
    expect(recorder.stats()).toMatchObject({ lastSyncAt: clock.now(), unsyncedBytes: recorder.stats().bytes - first });
  });
});

describe('disk durability (--sync-records)', () => {
  it('holds concurrent appends for the group commit and resolves them on disk, with no background sync', async () => {
    const dataDir = await useDataDir();
    const clock = createManualClock();
    const recorder = await useRecorder({ dataDir, clock, durability: 'disk' });
    // The first pair is written at once (nothing was written before), and takes two records.
    await Promise.all([recorder.append(makeRecord({ n: 1 })), recorder.append(makeRecord({ n: 2 }))]);
    expect(clock.pendingTimers()).toBe(0);
    let settled = 0;
    const pair = Promise.all([recorder.append(makeRecord({ n: 3 })), recorder.append(makeRecord({ n: 4 }))]).then(() => (settled = 2));
    // The next write waits out the 10 ms window after the last one started, on the clock.
    await vi.waitFor(() => expect(clock.nextTimerIn()).toBe(10), { timeout: 5_000 });
    expect(settled).toBe(0);
    expect(await createCallStore(dataDir).count()).toBe(2);
    clock.advance(10);
    await pair;
    expect(await createCallStore(dataDir).count()).toBe(4);
    expect(recorder.stats()).toMatchObject({ unsyncedBytes: 0, lastSyncAt: undefined });
    expect(clock.pendingTimers()).toBe(0);
    // Segments are opened with O_DSYNC: written means on disk.
    if (isLinux) expect(openSegmentFlags(process.pid, dataDir).map((flags) => (flags & constants.O_DSYNC) !== 0)).toEqual([true]);
  });
});
