import { watch } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { useTeardown } from '../helpers/use-teardown.js';

/**
 * Issue 18 item 12: a kill -9 while the env file was written left
 * `.env.tmp-….local` (0600, the key inside) beside it, never removed. Now the
 * write is staged in the data dir and renamed onto the env file, and `start`
 * removes temp files of ours that a killed daemon left.
 */
const KEY = `median_key_${'Kt7'.repeat(14)}`;
const TEMP = /\.tmp-[0-9a-f]{12}/;

function startArgs(dataDir: string): string[] {
  return ['start', '--json', '--no-tui', '--no-inspector', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--target', 'http://127.0.0.1:9', '--median-api', 'http://127.0.0.1:9', '--data-dir', dataDir];
}

describe('item 12: temp files of a killed env-file write', () => {
  it('a kill -9 mid-write leaves no temp file beside the env file; the next start removes what is left', async () => {
    const dir = await useTempDir('median-dev-envtmp-');
    const dataDir = join(dir, '.median-dev');
    await mkdir(dataDir, { mode: 0o700 });
    await writeFile(join(dir, '.env.local'), `MEDIAN_KEY=${KEY}\n`, { mode: 0o600 });
    // What an older median-dev killed mid-write left behind.
    const planted = join(dir, '.env.tmp-0123456789ab.local');
    await writeFile(planted, `MEDIAN_KEY=${KEY}\nMEDIAN_TOOLS_URL=https://old.example.test/api/median\n`, { mode: 0o600 });

    const cli = spawnCli(startArgs(dataDir), { cwd: dir });
    // The attacker is the crash: kill -9 the moment a temp of the env file shows up anywhere.
    const seenBeside: string[] = [];
    const killAtTemp = (folder: string, isBeside: boolean) =>
      useTeardown(
        watch(folder, (_type, name) => {
          if (typeof name !== 'string' || !name.startsWith('.env.tmp-') || name === '.env.tmp-0123456789ab.local') return;
          if (isBeside) seenBeside.push(name);
          cli.child.kill('SIGKILL');
        }),
        (w) => w.close(),
      );
    killAtTemp(dir, true);
    killAtTemp(dataDir, false);
    await cli.exited;

    const second = spawnCli(startArgs(dataDir), { cwd: dir });
    await second.waitForEvent((e) => e.event === 'tools-url');
    await second.stop();
    // Read once the second daemon has stopped: its own atomic writes (state.json, control.json) are renamed by then.
    const left = [...(await readdir(dir)), ...(await readdir(dataDir))].filter((name) => TEMP.test(name));

    expect(seenBeside).toEqual([]);
    expect(left).toEqual([]);
    expect(await readFile(join(dir, '.env.local'), 'utf8')).toBe(`MEDIAN_KEY=${KEY}\nMEDIAN_TOOLS_URL=https://tools.example.test/api/median\n`);
    // Said out loud (by the first start, which found the planted one).
    expect([...cli.events(), ...second.events()]).toContainEqual(expect.objectContaining({ event: 'log', message: expect.stringContaining('.env.tmp-0123456789ab.local') }));
  }, 40_000);
});
