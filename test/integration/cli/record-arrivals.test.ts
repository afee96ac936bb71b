import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { watchRecordArrivals } from '../../../src/cli/record-arrivals.js';
import { callsDirOf } from '../../../src/recorder/index.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** The fallback is far beyond the test's timeout: only the file event (or wake) can end a wait in time. */
const NEVER_MS = 600_000;

describe('calls --follow: waking on new records', () => {
  it('a record appended to a segment ends the wait (a file event, not the fallback timer)', { timeout: 10_000 }, async () => {
    const dataDir = await useTempDir('median-dev-arrivals-');
    const callsDir = callsDirOf(dataDir);
    await mkdir(callsDir, { recursive: true });
    const segment = join(callsDir, 'calls-000001.jsonl');
    await appendFile(segment, '');
    const arrivals = useTeardown(watchRecordArrivals(dataDir, { fallbackMs: NEVER_MS }), (a) => a.close());

    await arrivals.ready;
    const woke = arrivals.next();
    await appendFile(segment, '{"id":"rec_1"}\n');
    await woke;
  });

  it('wake() ends the wait at once (Ctrl-C), and close() leaves nothing running', async () => {
    const dataDir = await useTempDir('median-dev-arrivals-');
    const arrivals = watchRecordArrivals(dataDir, { fallbackMs: NEVER_MS });
    const waiting = arrivals.next();
    arrivals.wake();
    await waiting;
    await arrivals.close();
    await arrivals.close();
  });
});
