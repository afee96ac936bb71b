import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { daemonTuiClient } from '../../../src/cli/attach-tui.js';
import { resolveStartConfig } from '../../../src/config/index.js';
import { startDaemon } from '../../../src/daemon/index.js';
import { openRecorder } from '../../../src/recorder/index.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { makeRecord } from '../../helpers/make-record.js';
import { attachTuiToControl } from '../../../src/tui/index.js';
import { fakeTty } from '../../helpers/terminal-streams.js';
import { useHttpServer } from '../../helpers/use-http-server.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/**
 * `start`'s own TUI: the real daemon (`--tunnel none`, no key) in front of a
 * real HTTP route, the real TUI on a blessed screen over fake streams, fed by
 * the client attachDaemonTui gives it.
 */
describe('the TUI of `start`', () => {
  it('shows the calls an earlier run stored (read from the store), then a new call once', { timeout: 30_000 }, async () => {
    const project = await useTempDir('median-dev-tui-start-');
    const dataDir = join(project, '.median-dev');
    const earlier = await openRecorder({ dataDir, secrets: [] });
    for (const tool of ['earlierLookup', 'earlierRefund']) await earlier.append(makeRecord({ tool }));
    await earlier.close();
    const route = await useHttpServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"result":{"status":"shipped"}}'));
    });
    const config = await resolveStartConfig(
      { target: route.url, route: '/api/median', port: '0', tunnel: 'none', envFile: false, dataDir, tui: false, inspector: false },
      { env: {}, cwd: project, isTTY: false },
    );
    const daemon = useTeardown(await startDaemon({ config, childCommand: [], baseEnv: {}, version: 'test', pid: process.pid }), (d) => d.close());
    const tty = fakeTty(150, 30);
    const attached = useTeardown(attachTuiToControl(daemonTuiClient(daemon), { input: tty.input, output: tty.output, terminal: 'xterm-256color' }), (a) => a.close());
    const screen = (): string => attached.tui.screenText().join('\n');

    await vi.waitFor(() => expect(screen()).toContain('earlierRefund'), { timeout: 10_000 });
    expect(screen()).toContain('earlierLookup');
    expect(screen()).toContain('2 calls');

    const body = JSON.stringify({ tool: 'liveCall', toolCallId: 'call_live', input: {}, context: { conversationId: 'conv_1', risk: 'low' } });
    const answer = await fetch(`${daemon.proxyUrl}/api/median`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(answer.status).toBe(200);
    await vi.waitFor(() => expect(screen()).toContain('liveCall'), { timeout: 10_000 });
    expect(screen()).toContain('3 calls');
  });
});
