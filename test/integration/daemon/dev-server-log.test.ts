import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDevServerLog } from '../../../src/daemon/dev-server-log.js';
import { createEventHub } from '../../../src/daemon/event-hub.js';
import type { DaemonEvent } from '../../../src/events/index.js';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const output = (line: string): DaemonEvent => ({ event: 'output', at: '2026-01-05T14:02:10.000Z', stream: 'stdout', line });

describe('dev-server.log', () => {
  it('rotates past its size into dev-server.log.1, files 0600', async () => {
    const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-devlog-')), (d) => rm(d, { recursive: true, force: true }));
    const log = createDevServerLog({ dataDir: dir, logger: createRecordingLogger(), maxBytes: 200 });
    for (let i = 0; i < 10; i += 1) {
      log.take(output(`line ${i} ${'x'.repeat(20)}`));
      await log.close();
    }
    log.take({ event: 'child', at: '2026-01-05T14:02:11.000Z', state: 'exited', pid: 4, code: 1 });
    await log.close();
    const current = await readFile(join(dir, 'dev-server.log'), 'utf8');
    const older = await readFile(join(dir, 'dev-server.log.1'), 'utf8');
    expect(current).toContain('--- dev server exited (code 1)');
    expect(current.length).toBeLessThanOrEqual(200);
    expect(older).toContain('out line');
    expect(current).not.toContain('out line 0 ');
    if (process.platform !== 'win32') expect((await stat(join(dir, 'dev-server.log'))).mode & 0o777).toBe(0o600);
  });

  it('the last 200 lines are in the snapshot that watch and the inspector\'s status page start from', () => {
    const hub = createEventHub({ version: '0', isDemo: false, keyFingerprint: null, callCount: 0, records: [], devServerLog: '/p/dev-server.log' });
    for (let i = 0; i < 250; i += 1) hub.emit({ event: 'output', stream: 'stdout', line: `line ${i}` });
    const snapshot = hub.snapshot();
    expect(snapshot.devServerOutput).toHaveLength(200);
    expect(snapshot.devServerOutput?.at(-1)).toBe('line 249');
    expect(snapshot.devServerLog).toBe('/p/dev-server.log');
  });
});
