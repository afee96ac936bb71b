import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { attachTui } from '../../../src/cli/attach-tui.js';
import type { TuiControlClient } from '../../../src/tui/index.js';
import { openRecorder } from '../../../src/recorder/index.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { makeRecord } from '../../helpers/make-record.js';
import { makeSnapshot } from '../../helpers/record-fixtures.js';
import { fakeTty, ttyIo } from '../../helpers/terminal-streams.js';
import { useTeardown } from '../../helpers/use-teardown.js';

describe('the TUI’s t key', () => {
  it('saves the selected call from the store under median-calls/, and says where; again: already saved', async () => {
    const project = await useTempDir('median-dev-tui-save-');
    const dataDir = join(project, '.median-dev');
    const recorder = useTeardown(await openRecorder({ dataDir, secrets: [] }), (r) => r.close());
    const record = await recorder.append(makeRecord({ toolCallId: 'call_0000000000000000000000000000beef' }));
    // The in-process daemon's client, as attachDaemonTui builds it: a snapshot, no events, commands answered.
    const client: TuiControlClient = { snapshot: makeSnapshot([record]), onEvent: () => () => undefined, send: async () => ({}), close: () => undefined };
    const tty = fakeTty(120, 30);
    const config = { dataDir, envFile: join(project, '.env.local'), target: 'http://127.0.0.1:3000', route: '/api/median', medianKey: undefined, toolSecret: undefined };
    const tui = useTeardown(attachTui(client, ttyIo(tty, project), { config, isDemo: false, onQuit: () => undefined }), (t) => t.close());

    tty.input.write('t');
    const file = join(project, 'median-calls', 'orderStatus-0000beef.json');
    await vi.waitFor(async () => expect(JSON.parse(await readFile(file, 'utf8')).savedFrom.recordId).toBe(record.id), { timeout: 10_000 });
    const screen = () => tui.tui.screenText().join('\n');
    await vi.waitFor(() => expect(screen()).toContain('Saved as median-calls/orderStatus-0000beef.json: run it with median-dev test'), { timeout: 10_000 });
    tty.input.write('t');
    await vi.waitFor(() => expect(screen()).toContain('Already saved as median-calls/orderStatus-0000beef.json'), { timeout: 10_000 });
  });
});
