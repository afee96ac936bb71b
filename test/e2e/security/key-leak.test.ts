import { readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { attachTui } from '../../../src/cli/attach-tui.js';
import { resolveConfig } from '../../../src/config/index.js';
import { connectToDaemon } from '../../../src/control/index.js';
import type { DaemonEvent } from '../../../src/events/index.js';
import { runCliInProcess, type InProcessRun } from '../../helpers/cli-harness.js';
import { EXAMPLE_ROUTE, isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { fakeTty, ttyIo } from '../../helpers/terminal-streams.js';
import { findLeaks, keyNeedles, readTree } from './leak-search.js';

/**
 * A dev server that prints its environment's key before it starts (dev
 * servers do log their config), then serves the example route.
 */
const LEAKY_CHILD = [
  process.execPath,
  '-e',
  [
    "console.log('dev server config: MEDIAN_KEY=' + process.env.MEDIAN_KEY);",
    'console.error(JSON.stringify({ env: { MEDIAN_KEY: process.env.MEDIAN_KEY } }));',
    "import(require('node:url').pathToFileURL(process.argv[1]).href);",
  ].join(' '),
  EXAMPLE_ROUTE,
];

/** Every OSC 52 clipboard payload a terminal would receive, decoded. */
function clipboardTexts(raw: string): string {
  // eslint-disable-next-line no-control-regex
  return [...raw.matchAll(/\u001b\]52;c;([A-Za-z0-9+/=]*)\u0007/g)].map((m) => Buffer.from(m[1] ?? '', 'base64').toString('utf8')).join('\n');
}

describe('the Median key never leaves the env file it was written in', () => {
  it('is in no output, file, control frame, HAR export or TUI screen after a full run with a key rotation', { timeout: 90_000 }, async () => {
    const world = await useE2eWorld({ envFileText: (key) => `# shop\nMEDIAN_KEY=${key}\nDATABASE_URL=postgres://localhost/shop\n` });
    const firstKey = world.emulator.key;
    const outputs: Array<{ where: string; text: string }> = [];
    const cliArgs = ['--data-dir', world.dataDir, '--env-file', world.envFile, '--median-api', world.emulator.url];
    const run = async (label: string, argv: string[], env: Record<string, string> = {}): Promise<InProcessRun> => {
      const result = await runCliInProcess([...argv, ...cliArgs], { env, cwd: world.projectDir });
      outputs.push({ where: `${label} stdout`, text: result.stdout }, { where: `${label} stderr`, text: result.stderr });
      return result;
    };

    const cli = world.start({ childCommand: LEAKY_CHILD });
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);

    // A control client that keeps every frame, and the TUI on a second one, as `watch` draws it.
    const frames: string[] = [];
    const control = useTeardown(await connectToDaemon(world.dataDir), (c) => c.close());
    frames.push(JSON.stringify({ type: 'snapshot', snapshot: control.snapshot }));
    control.onEvent((event: DaemonEvent) => frames.push(JSON.stringify({ type: 'event', event })));
    const tty = fakeTty(160, 60);
    const io = ttyIo(tty, world.projectDir);
    const config = await resolveConfig({ dataDir: world.dataDir, envFile: world.envFile }, { env: {}, cwd: world.projectDir });
    const tui = attachTui(await connectToDaemon(world.dataDir), io, { config, isDemo: false, onQuit: () => undefined });
    useTeardown(tui, (t) => t.close());

    // Agent calls through the tunnel: an ordinary one, one whose input is the key itself, a signed-in visitor.
    const mark = cli.events().length;
    const calls = [
      await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } }),
      await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: firstKey } }),
      await world.emulator.callTool({ tool: 'lookupCustomer', input: {}, visitor: { verified: true, externalId: 'cus_1', email: 'ada@example.com', name: 'Ada' } }),
    ];
    for (const call of calls) await waitForEventAfter(cli, mark, 'call', { toolCallId: call.toolCallId });
    const echoed = calls[1]!;

    await run('calls --json', ['calls', '--json']);
    await run('calls', ['calls']);
    await run('show --json', ['show', echoed.toolCallId, '--json']);
    await run('show', ['show', echoed.toolCallId]);
    await run('show --curl', ['show', echoed.toolCallId, '--curl']);
    const replayMark = cli.events().length;
    const replay = await run('replay --json', ['replay', echoed.toolCallId, '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    await waitForEventAfter(cli, replayMark, 'call', { toolCallId: echoed.toolCallId });
    const testCall = await run('call --json', ['call', 'orderStatus', '--input', JSON.stringify({ orderNumber: firstKey }), '--json']);
    expect(testCall.code, testCall.stderr).toBe(0);
    await run('manifest --json', ['manifest', '--json']);
    await run('endpoints', ['endpoints']);
    await run('endpoints --json', ['endpoints', '--json']);

    // "You rotated the Median key": the new key goes into the env file.
    const secondKey = world.emulator.createKey();
    const rotationMark = cli.events().length;
    await writeFile(world.envFile, (await readFile(world.envFile, 'utf8')).replace(firstKey, secondKey));
    await waitForEventAfter(cli, rotationMark, 'endpoint', { action: 'synced' }, 30_000);
    world.emulator.revokeKey(firstKey);
    const afterRotation = await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: secondKey } });
    expect(afterRotation.verdict.kind).toBe('answered');
    await waitForEventAfter(cli, rotationMark, 'call', { toolCallId: afterRotation.toolCallId });
    await run('calls --json after the rotation', ['calls', '--json']);
    await run('show --curl after the rotation', ['show', afterRotation.toolCallId, '--curl']);
    await run('export --har', ['export', '--har', join(world.projectDir, 'calls.har')]);

    // Error paths that name where the key came from: a revoked key from the environment, a malformed one.
    const revoked = await run('endpoints with a revoked key', ['endpoints'], { MEDIAN_KEY: firstKey });
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toContain('[invalid_api_key]');
    const malformedKey = `median_key_${secondKey.slice(11, 30)}-${secondKey.slice(30)}`;
    const malformed = await run('call with a malformed key', ['call', 'orderStatus'], { MEDIAN_KEY: malformedKey });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('[invalid_median_key]');

    // The TUI: every call selected in turn, its detail paged through, its curl shown.
    const screens: string[] = [];
    const t = tui.tui;
    await vi.waitFor(() => expect(t.state.records.length).toBeGreaterThanOrEqual(calls.length + 3));
    t.dispatch({ type: 'key', key: 'g' });
    for (let row = 0; row < t.state.records.length; row++) {
      screens.push(t.screenText().join('\n'));
      t.dispatch({ type: 'key', key: 'enter' });
      for (let page = 0; page < 6; page++) {
        t.dispatch({ type: 'key', key: 'pagedown' });
        screens.push(t.screenText().join('\n'));
      }
      t.dispatch({ type: 'key', key: 'escape' });
      t.dispatch({ type: 'key', key: 'c' });
      await vi.waitFor(() => expect(t.state.overlay?.kind).toBe('text'));
      screens.push(t.screenText().join('\n'));
      t.dispatch({ type: 'key', key: 'escape' });
      t.dispatch({ type: 'key', key: 'down' });
    }
    await tui.close();

    // The data dir while the daemon runs (control.json is there), then after it stopped.
    const whileRunning = (await readTree(world.dataDir)).map((file) => ({ ...file, where: `${file.where} (while running)` }));
    expect(await cli.stop()).toBe(0);
    await run('doctor after the stop', ['doctor']);

    const allKeys = [...keyNeedles(firstKey), ...keyNeedles(secondKey), ...keyNeedles(malformedKey)];
    const everything = [
      ...outputs,
      { where: 'start stdout', text: cli.stdout() },
      { where: 'start stderr', text: cli.stderr() },
      ...frames.map((text, i) => ({ where: `control frame ${i}`, text })),
      ...screens.map((text, i) => ({ where: `TUI screen ${i}`, text })),
      { where: 'TUI terminal output', text: tty.captured() },
      { where: 'TUI clipboard', text: clipboardTexts(tty.captured()) },
      ...whileRunning,
      ...(await readTree(world.projectDir)).filter((file) => file.where !== world.envFile),
    ];
    expect(findLeaks(everything, allKeys)).toEqual([]);

    // The search did look at the right things: each place held the masked key where the key would have been.
    const masked = (key: string) => `median_key_****${key.slice(-4)}`;
    const textOf = (where: string) => everything.find((s) => s.where === where)?.text ?? '';
    expect(textOf('calls --json after the rotation stdout')).toMatch(/"authorization": "Bearer [^"]*\*\*\*\*/);
    expect(textOf('show --json stdout')).toContain(masked(firstKey));
    expect(textOf('call --json stdout')).toContain(masked(firstKey));
    expect(textOf(join(world.projectDir, 'calls.har'))).toContain(masked(secondKey));
    expect(whileRunning.map((f) => f.where)).toContain(`${join(world.dataDir, 'control.json')} (while running)`);
    expect(cli.stderr()).toContain(`dev server config: MEDIAN_KEY=${masked(firstKey)}`);
    expect(cli.stderr()).toContain(`dev server config: MEDIAN_KEY=${masked(secondKey)}`);
    expect(frames.some((f) => f.includes(masked(secondKey)) && f.includes(afterRotation.toolCallId))).toBe(true);
    expect(screens.join('\n')).toContain(masked(firstKey));
    expect(screens.join('\n')).toContain('curl');
    // Doctor names the key's file as the TUI header does: from the project folder.
    expect(textOf('doctor after the stop stdout')).toContain(`…${secondKey.slice(-4)}, from ${relative(world.projectDir, world.envFile)})`);
    // …and the env file still holds the key the user put there.
    expect(await readFile(world.envFile, 'utf8')).toContain(`MEDIAN_KEY=${secondKey}`);
  });
});
