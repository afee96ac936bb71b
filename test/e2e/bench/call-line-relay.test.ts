import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { spawnSoakDaemon } from '../../../bench/soak/soak-daemon.js';
import { BUNDLED_CLI_PATH } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';

// A preload that prints what a daemon under load prints (call lines among other events) and exits, in place of the CLI.
const PRINT_EVENTS = [
  'const line = (event) => process.stdout.write(JSON.stringify(event) + "\\n");',
  'line({ event: "tunnel", at: "", state: "open" });',
  'for (let i = 0; i < 3; i += 1) line({ event: "call", at: "", toolCallId: "tc_" + i, record: { body: "x".repeat(2000) } });',
  'line({ event: "endpoint", at: "", action: "synced" });',
  'process.stdout.write("[gc] not an event line, the last one out\\n");',
  'process.exit(0);',
].join('\n');

// The tunnel bench has a relay process read the daemon's call lines, so the process timing the calls is not the one reading them.
describe('the bench daemon reads its call lines here or through a relay', () => {
  it.each([
    ['relayed', true],
    ['read here', false],
  ])('%s: calls counted, the other events kept in order, no call line kept', async (_name, relayCallLines) => {
    const dir = await useTempDir('median-dev-call-relay-');
    const preload = join(dir, 'print-events.cjs');
    await writeFile(preload, `${PRINT_EVENTS}\n`);
    const otherLinesFile = join(dir, 'other-lines.txt');
    const daemon = spawnSoakDaemon({ cliEntry: BUNDLED_CLI_PATH, args: ['--version'], cwd: dir, env: { PATH: process.env.PATH, NODE_OPTIONS: `--require ${preload}` }, relayCallLines, otherLinesFile });
    onTestFinished(() => daemon.killNow());
    await daemon.waitForEvent(0, (event) => event.event === 'endpoint', 15_000);
    await vi.waitFor(() => expect(daemon.callEvents()).toBe(3), { timeout: 5_000, interval: 20 });
    expect(daemon.events().map((event) => event.event)).toEqual(['tunnel', 'endpoint']);
    // The call lines (~2 KB each) reach this process only when it reads them itself.
    if (relayCallLines) expect(daemon.stdoutChars()).toBeLessThan(1_000);
    else expect(daemon.stdoutChars()).toBeGreaterThan(6_000);
    // The last line comes after the CLI's exit (through the relay, later still): it is written, not dropped or written after the file's end.
    await vi.waitFor(async () => expect(await readFile(otherLinesFile, 'utf8')).toBe('[gc] not an event line, the last one out\n'), { timeout: 5_000, interval: 20 });
  });

  it('refuses to relay the lines keepCallIds needs', () => {
    expect(() => spawnSoakDaemon({ cliEntry: BUNDLED_CLI_PATH, args: [], cwd: '.', env: {}, relayCallLines: true, keepCallIds: true })).toThrow(/keepCallIds/);
  });
});
