// The env file's settle (two reads 40 ms apart, so a file caught half-written is neither read as final
// nor rewritten) begun before the tunnel's URL is known (settleEnvFileEarly, as `start` does once its
// config is): when the tunnel opens, a file untouched since is written with no wait, and one written
// since settles again as before. The settle's waits run on a manual clock: a write that needs no wait
// happens with the clock never moved.
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { settleEnvFileEarly, type EnvFileSnapshot } from '../../../src/config/index.js';
import { createEnvVars } from '../../../src/daemon/env-vars.js';
import { createToolsUrlWriter } from '../../../src/daemon/tools-url-writer.js';
import { createManualClock, type ManualClock } from '../../helpers/manual-clock.js';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { KEY, OTHER_KEY } from './dispatch-harness.js';

const URL = 'https://early.loca.lt/api/median';

async function useEnvFile(content: string): Promise<{ dir: string; envFile: string }> {
  const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-early-settle-')), (d) => rm(d, { recursive: true, force: true }));
  const envFile = join(dir, '.env.local');
  await writeFile(envFile, content);
  return { dir, envFile };
}

/** settleEnvFileEarly's two reads, the clock moved past the wait between them. */
async function settledOn(clock: ManualClock, envFile: string) {
  const settled = settleEnvFileEarly(envFile, clock);
  await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1));
  clock.advance(40);
  expect(await settled).toMatchObject({ bytes: Buffer.from(`MEDIAN_KEY=${KEY}\n`) });
  return settled;
}

function writerFor(dir: string, envFile: string, clock: ManualClock, settled: EnvFileSnapshot | undefined | ReturnType<typeof settleEnvFileEarly>) {
  const writer = createToolsUrlWriter({ envFile, dataDir: join(dir, 'data'), vars: createEnvVars({ MEDIAN_KEY: KEY }), emit: () => undefined, logger: createRecordingLogger(), settled: Promise.resolve(settled), settleClock: clock });
  return useTeardown(writer, (w) => w.noted()); // its note in the data dir, written before the folder goes
}

describe('the env file settled before the tunnel opens', () => {
  it('an env file untouched since is written the moment the URL is known, with no settle wait', async () => {
    const { dir, envFile } = await useEnvFile(`MEDIAN_KEY=${KEY}\n`);
    const clock = createManualClock();
    const writer = writerFor(dir, envFile, clock, await settledOn(clock, envFile));
    const openedAt = clock.now(); // the tunnel opens: its URL is written

    const writing = writer.write(URL);
    await vi.waitFor(async () => expect(await readFile(envFile, 'utf8')).toBe(`MEDIAN_KEY=${KEY}\nMEDIAN_TOOLS_URL=${URL}\n`), { timeout: 5_000 });
    await writing;
    expect(clock.now()).toBe(openedAt);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('an env file truncated since (an editor saving in place) is neither rewritten half-written nor its lines lost', async () => {
    const { dir, envFile } = await useEnvFile(`MEDIAN_KEY=${KEY}\n`);
    const clock = createManualClock();
    const writer = writerFor(dir, envFile, clock, await settledOn(clock, envFile));
    await writeFile(envFile, ''); // truncated, the new bytes not yet written

    const writing = writer.write(URL);
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1)); // it settles again instead
    expect(await readFile(envFile, 'utf8')).toBe('');
    await writeFile(envFile, `MEDIAN_KEY=${OTHER_KEY}\nDEBUG=1\n`); // the editor's write lands
    clock.advance(40); // '' then the new bytes: not settled, read again
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1));
    expect(await readFile(envFile, 'utf8')).toBe(`MEDIAN_KEY=${OTHER_KEY}\nDEBUG=1\n`);
    clock.advance(40);
    await writing;
    expect(await readFile(envFile, 'utf8')).toBe(`MEDIAN_KEY=${OTHER_KEY}\nDEBUG=1\nMEDIAN_TOOLS_URL=${URL}\n`);
  });

  it('an env file written since with the bytes it had (a save caught after its first part) settles again too', async () => {
    const { dir, envFile } = await useEnvFile(`MEDIAN_KEY=${KEY}\n`);
    const clock = createManualClock();
    const writer = writerFor(dir, envFile, clock, await settledOn(clock, envFile));
    await writeFile(envFile, `MEDIAN_KEY=${KEY}\n`);
    await utimes(envFile, new Date(Date.now() + 5_000), new Date(Date.now() + 5_000)); // written: later times, whatever the file system's granularity

    const writing = writer.write(URL);
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1)); // not taken as settled: it waits for a second read
    expect(await readFile(envFile, 'utf8')).toBe(`MEDIAN_KEY=${KEY}\n`);
    clock.advance(40);
    await writing;
    expect(await readFile(envFile, 'utf8')).toBe(`MEDIAN_KEY=${KEY}\nMEDIAN_TOOLS_URL=${URL}\n`);
  });

  it('a later URL settles the file again: the early read serves the first write only', async () => {
    const { dir, envFile } = await useEnvFile(`MEDIAN_KEY=${KEY}\n`);
    const clock = createManualClock();
    const writer = writerFor(dir, envFile, clock, await settledOn(clock, envFile));
    await writer.write(URL);

    const writing = writer.write('https://later.loca.lt/api/median');
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1));
    clock.advance(40);
    await writing;
    expect(await readFile(envFile, 'utf8')).toBe(`MEDIAN_KEY=${KEY}\nMEDIAN_TOOLS_URL=https://later.loca.lt/api/median\n`);
  });

  it('what is not a regular file settles to nothing early, and the write still refuses it with its code', async () => {
    const { dir } = await useEnvFile('');
    const clock = createManualClock();
    const settled = settleEnvFileEarly(dir, clock); // a folder
    expect(await settled).toBeUndefined();
    const writer = writerFor(dir, dir, clock, settled);
    await expect(writer.write(URL)).rejects.toMatchObject({ code: 'env_file_not_regular' });
  });
});
