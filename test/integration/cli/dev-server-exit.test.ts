import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { runDaemonInForeground } from '../../../src/cli/foreground-daemon.js';
import { resolveStartConfig } from '../../../src/config/index.js';
import { startDaemon, type Daemon } from '../../../src/daemon/index.js';
import type { DaemonEvent } from '../../../src/events/index.js';
import { useTempDir } from '../../helpers/e2e-world.js';
import { fakeTty, stripAnsi, ttyIo } from '../../helpers/terminal-streams.js';
import { useEmulator } from '../../helpers/use-emulator.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const WHY = 'Error: listen EADDRINUSE: address already in use 127.0.0.1:39397';

/**
 * A real dev server that prints why it fails and exits 3: at once, or once
 * `trigger` exists (so the screen is up first).
 */
function failingDevServer(trigger?: string): string[] {
  const fail = `console.log('starting the shop'); console.error(${JSON.stringify(WHY)}); process.exit(3);`;
  const script = trigger ? `const fs = require('node:fs'); setInterval(() => { if (fs.existsSync(${JSON.stringify(trigger)})) { ${fail} } }, 20);` : fail;
  return [process.execPath, '-e', script];
}

/** A real daemon (no tunnel, the emulator as Median) running `childCommand` in a fresh data dir; `withKey`: MEDIAN_KEY in its environment. */
async function useDaemon(childCommand: string[], withKey = false) {
  const { emulator } = await useEmulator();
  const dataDir = await useTempDir('median-dev-exit-');
  const config = await resolveStartConfig(
    { target: 'http://127.0.0.1:9', route: '/api/median', port: '0', tunnel: 'none', medianApi: emulator.url, envFile: false, dataDir, tui: true, inspector: false },
    { env: { MEDIAN_KEY: emulator.key }, cwd: dataDir, isTTY: true },
  );
  const events: DaemonEvent[] = [];
  const daemon: Daemon = useTeardown(await startDaemon({ config, childCommand, baseEnv: { PATH: process.env.PATH, ...(withKey ? { MEDIAN_KEY: emulator.key } : {}) }, version: 'test', pid: process.pid, onEvent: (e) => void events.push(e) }), (d) => d.close());
  return { daemon, config, dataDir, events };
}

/** The CLI's io on a fake terminal, its stderr apart (what is left in the terminal after the screen is gone). */
function terminalIo(cwd: string) {
  const tty = fakeTty(140, 30);
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  let out = '';
  tty.output.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  return { tty, io: { ...ttyIo(tty, cwd), stderr }, stderr: () => err, stdout: () => out };
}

describe('a dev server that exits, under the terminal UI', () => {
  it('exited before the screen attached: its lines open, and the CLI prints them with the log on exit', { timeout: 30_000 }, async () => {
    const { daemon, config, dataDir, events } = await useDaemon(failingDevServer());
    await vi.waitFor(() => expect(events.some((e) => e.event === 'child' && e.state === 'exited')).toBe(true), { timeout: 10_000 });
    expect(daemon.snapshot().child).toMatchObject({ state: 'exited', code: 3, signal: null });

    const { tty, io, stderr } = terminalIo(dataDir);
    const running = runDaemonInForeground(daemon, io, { json: false, tui: true, config });
    await vi.waitFor(() => expect(tty.plain()).toContain(WHY), { timeout: 10_000 });
    expect(tty.plain()).toContain('exited (code 3)');
    expect(tty.plain()).toContain(join(dataDir, 'dev-server.log'));

    // The first key closes the lines' box, the second quits.
    tty.input.write('q');
    tty.input.write('q');
    await running;
    const said = stderr();
    expect(said).toContain('the dev server exited (code 3)');
    expect(said).toContain(`  starting the shop\n  ${WHY}\n`);
    expect(said).toContain(`All of its output: ${join(dataDir, 'dev-server.log')}`);
  });

  it('exited while the screen was up: said on exit too', { timeout: 30_000 }, async () => {
    const trigger = join(await useTempDir('median-dev-exit-trigger-'), 'fail-now');
    const { daemon, config, dataDir } = await useDaemon(failingDevServer(trigger));
    const { tty, io, stderr } = terminalIo(dataDir);
    const running = runDaemonInForeground(daemon, io, { json: false, tui: true, config });
    await vi.waitFor(() => expect(stripAnsi(tty.captured())).toContain('running'), { timeout: 10_000 });
    await writeFile(trigger, '');
    await vi.waitFor(() => expect(tty.plain()).toContain(WHY), { timeout: 10_000 });
    tty.input.write('q');
    tty.input.write('q');
    await running;
    expect(stderr()).toContain(`the dev server exited (code 3)`);
    expect(stderr()).toContain(WHY);
  });

  it('a key the dev server printed is masked in the lines said on exit', { timeout: 30_000 }, async () => {
    const leaky = [process.execPath, '-e', "console.log('config: MEDIAN_KEY=' + process.env.MEDIAN_KEY); process.exit(1);"];
    const { daemon, config, dataDir, events } = await useDaemon(leaky, true);
    await vi.waitFor(() => expect(events.some((e) => e.event === 'child' && e.state === 'exited')).toBe(true), { timeout: 10_000 });
    const { tty, io, stderr } = terminalIo(dataDir);
    const running = runDaemonInForeground(daemon, io, { json: false, tui: true, config });
    await vi.waitFor(() => expect(tty.plain()).toContain('config: MEDIAN_KEY='), { timeout: 10_000 });
    tty.input.write('q');
    tty.input.write('q');
    await running;
    expect(stderr()).toContain('config: MEDIAN_KEY=median_key_****');
    expect(stderr()).not.toContain(config.medianKey!);
    expect(tty.captured()).not.toContain(config.medianKey!);
  });

  it('still running at the quit: nothing is said about it', { timeout: 30_000 }, async () => {
    const trigger = join(await useTempDir('median-dev-exit-trigger-'), 'never');
    const { daemon, config, dataDir } = await useDaemon(failingDevServer(trigger));
    const { tty, io, stderr } = terminalIo(dataDir);
    const running = runDaemonInForeground(daemon, io, { json: false, tui: true, config });
    await vi.waitFor(() => expect(daemon.snapshot().child.state).toBe('running'), { timeout: 10_000 });
    await vi.waitFor(() => expect(tty.plain()).toContain('running'), { timeout: 10_000 });
    tty.input.write('q');
    await running;
    expect(stderr()).not.toContain('the dev server exited');
  });

  it('--no-tui: the exit line names the file with its whole output', { timeout: 30_000 }, async () => {
    const trigger = join(await useTempDir('median-dev-exit-trigger-'), 'fail-now');
    const { daemon, config, dataDir } = await useDaemon(failingDevServer(trigger));
    const { io, stdout } = terminalIo(dataDir);
    const running = runDaemonInForeground(daemon, { ...io, isTTY: false }, { json: false, tui: false, config });
    await writeFile(trigger, '');
    await vi.waitFor(() => expect(stdout()).toContain('exited (code 3)'), { timeout: 10_000 });
    expect(stripAnsi(stdout())).toContain(`[dev] ${WHY}`);
    expect(stdout()).toContain(`its whole output: ${join(dataDir, 'dev-server.log')}`);
    void daemon.close();
    await running;
  });
});
