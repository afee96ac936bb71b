import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-harness.js';
import { isEvent, useE2eWorld, waitForEventAfter } from '../../helpers/e2e-world.js';
import { walkTree } from './leak-search.js';

/**
 * No umask to hide behind: with 000, a file created without an explicit
 * mode would be 0666 and a folder 0777. The spawned CLI inherits it.
 */
function withoutUmask(): void {
  const previous = process.umask(0o000);
  onTestFinished(() => {
    process.umask(previous);
  });
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
const octal = (mode: number) => `0${mode.toString(8)}`;

/** `path mode` for every entry that is not 0700 (folders) or 0600 (files). */
async function looseEntries(dir: string): Promise<string[]> {
  return (await walkTree(dir))
    .filter((entry) => entry.mode !== (entry.isDirectory ? 0o700 : 0o600))
    .map((entry) => `${entry.path} ${octal(entry.mode)}`);
}

describe('the data dir is private', () => {
  it('is 0700 with every file 0600 after a full run, control.json 0600 while it runs', { timeout: 60_000 }, async () => {
    withoutUmask();
    const world = await useE2eWorld();
    const cliArgs = ['--data-dir', world.dataDir, '--env-file', world.envFile, '--median-api', world.emulator.url];
    const cli = world.start();
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);

    expect(octal(await modeOf(join(world.dataDir, 'control.json')))).toBe('0600');
    expect(octal(await modeOf(world.dataDir))).toBe('0700');

    const mark = cli.events().length;
    const call = await world.emulator.callTool({ tool: 'orderStatus', input: { orderNumber: 'A1001' } });
    await waitForEventAfter(cli, mark, 'call', { toolCallId: call.toolCallId });
    const replay = await runCliInProcess(['replay', call.toolCallId, '--json', ...cliArgs], { env: {}, cwd: world.projectDir });
    expect(replay.code, replay.stderr).toBe(0);
    expect(await looseEntries(world.dataDir)).toEqual([]);
    expect(await cli.stop()).toBe(0);

    // After the daemon: a call recorded by the CLI's own one-shot proxy (this process, umask 000), and an export.
    const direct = await runCliInProcess(['call', 'orderStatus', '--input', '{"orderNumber":"A1002"}', '--json', ...cliArgs], { env: {}, cwd: world.projectDir });
    // The dev server stopped with the daemon: recorded as not answering.
    expect(JSON.parse(direct.stdout)).toMatchObject({ tool: 'orderStatus', verdict: { kind: 'not-answering' } });
    const har = join(world.projectDir, 'calls.har');
    expect((await runCliInProcess(['export', '--har', har, ...cliArgs], { env: {}, cwd: world.projectDir })).code).toBe(0);
    expect(octal(await modeOf(har))).toBe('0600');

    const tree = await walkTree(world.dataDir);
    expect(tree.filter((e) => !e.isDirectory).length).toBeGreaterThanOrEqual(2); // state.json and a calls segment at least
    expect(await looseEntries(world.dataDir)).toEqual([]);
  });

  it('tightens a data dir that exists with loose modes', { timeout: 60_000 }, async () => {
    withoutUmask();
    const world = await useE2eWorld();
    await mkdir(world.dataDir, { mode: 0o777 });
    await chmod(world.dataDir, 0o777);
    await writeFile(join(world.dataDir, 'state.json'), '{"version":1}\n', { mode: 0o666 });
    await chmod(join(world.dataDir, 'state.json'), 0o666);

    const cli = world.start();
    await cli.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    expect(await cli.stop()).toBe(0);
    expect(await looseEntries(world.dataDir)).toEqual([]);
  });
});
