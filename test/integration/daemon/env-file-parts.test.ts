import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readProjectState } from '../../../src/config/index.js';
import { createEnvVars } from '../../../src/daemon/env-vars.js';
import { createKeyRotation, type KeyRotationOptions } from '../../../src/daemon/key-rotation.js';
import { createToolsUrlWriter } from '../../../src/daemon/tools-url-writer.js';
import type { DaemonFact, NewDaemonEvent } from '../../../src/events/index.js';
import { createRecordingLogger } from '../../helpers/recording-logger.js';
import { useTeardown } from '../../helpers/use-teardown.js';
import { KEY, OTHER_KEY } from './dispatch-harness.js';

async function useDir(): Promise<string> {
  return useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-envparts-')), (d) => rm(d, { recursive: true, force: true }));
}

describe('the tools-URL writer (step 1 of a URL change)', () => {
  it('writes the URL into the env file, notes it for the dev server and the data dir, announces it once', async () => {
    const dir = await useDir();
    const envFile = join(dir, '.env.local');
    await writeFile(envFile, `MEDIAN_KEY=${KEY}\n`);
    const vars = createEnvVars({ MEDIAN_KEY: KEY });
    const events: NewDaemonEvent[] = [];
    const writer = useTeardown(createToolsUrlWriter({ envFile, dataDir: join(dir, 'data'), vars, emit: (e) => events.push(e), logger: createRecordingLogger() }), (w) => w.noted());

    expect(writer.current()).toBeUndefined();
    await writer.write('https://a.loca.lt/api/median');
    await writer.write('https://a.loca.lt/api/median');

    expect(writer.current()).toBe('https://a.loca.lt/api/median');
    expect(await readFile(envFile, 'utf8')).toBe(`MEDIAN_KEY=${KEY}\nMEDIAN_TOOLS_URL=https://a.loca.lt/api/median\n`);
    expect(vars.get()).toEqual({ MEDIAN_KEY: KEY, MEDIAN_TOOLS_URL: 'https://a.loca.lt/api/median' });
    await writer.noted();
    expect((await readProjectState(join(dir, 'data'))).toolsUrl).toBe('https://a.loca.lt/api/median');
    expect(events).toEqual([{ event: 'tools-url', url: 'https://a.loca.lt/api/median', envFile }]);
  });

  it('resolves once the env file has the URL: the dev server does not wait for the data dir’s note', async () => {
    const dir = await useDir();
    const envFile = join(dir, '.env.local');
    await writeFile(envFile, `MEDIAN_KEY=${KEY}\n`);
    const writer = useTeardown(createToolsUrlWriter({ envFile, dataDir: join(dir, 'data'), vars: createEnvVars({ MEDIAN_KEY: KEY }), emit: () => undefined, logger: createRecordingLogger() }), (w) => w.noted());

    await writer.write('https://c.loca.lt/api/median');
    expect(await readFile(envFile, 'utf8')).toContain('MEDIAN_TOOLS_URL=https://c.loca.lt/api/median');
    let isNoted = false;
    const noted = writer.noted().then(() => {
      isNoted = true;
    });
    await Promise.resolve();
    expect(isNoted).toBe(false); // the note's file operations are still on their way
    await noted;
    expect((await readProjectState(join(dir, 'data'))).toolsUrl).toBe('https://c.loca.lt/api/median');
  });

  it('without an env file, still announces and notes the URL', async () => {
    const dir = await useDir();
    const events: NewDaemonEvent[] = [];
    const writer = useTeardown(createToolsUrlWriter({ envFile: null, dataDir: join(dir, 'data'), vars: createEnvVars({}), emit: (e) => events.push(e), logger: createRecordingLogger() }), (w) => w.noted());
    await writer.write('https://b.loca.lt/api/median');
    expect(events).toEqual([{ event: 'tools-url', url: 'https://b.loca.lt/api/median', envFile: null }]);
  });
});

describe('the key rotation', () => {
  async function useRotation(config: Partial<KeyRotationOptions['config']> = {}) {
    const dir = await useDir();
    const envFile = join(dir, '.env.local');
    await writeFile(envFile, `MEDIAN_KEY=${KEY}\n`);
    const facts: DaemonFact[] = [];
    const events: NewDaemonEvent[] = [];
    const keys = createKeyRotation({
      config: { envFile, keyFile: envFile, keySource: 'env-file', medianKey: KEY, medianApi: 'http://127.0.0.1:9', ...config },
      vars: createEnvVars({ MEDIAN_KEY: KEY }),
      emit: (e) => events.push(e),
      report: (f) => facts.push(f),
      logger: createRecordingLogger(),
    });
    return { envFile, keys, facts, events };
  }

  it('reports envFile.keyChanged when the env file holds another key, and nothing for the same key', async () => {
    const { envFile, keys, facts } = await useRotation();
    await writeFile(envFile, `MEDIAN_KEY=${KEY}\nOTHER=1\n`);
    await keys.reread();
    expect(facts).toEqual([]);

    await writeFile(envFile, `MEDIAN_KEY=${OTHER_KEY}\n`);
    await keys.reread();
    expect(facts).toEqual([{ type: 'envFile.keyChanged', key: OTHER_KEY, source: envFile }]);
    // Reported, not yet used: the dispatch decides when the key switches.
    expect(keys.key()).toBe(KEY);
    keys.use(OTHER_KEY);
    expect(keys.key()).toBe(OTHER_KEY);
    expect(keys.api()).toBeDefined();
  });

  it('a removed key is a change to none; then requireApi says missing_key with where to put it', async () => {
    const { envFile, keys, facts } = await useRotation();
    await writeFile(envFile, 'OTHER=1\n');
    await keys.reread();
    expect(facts).toEqual([{ type: 'envFile.keyChanged', key: undefined, source: undefined }]);
    keys.use(undefined);
    expect(keys.api()).toBeUndefined();
    expect(() => keys.requireApi()).toThrow(expect.objectContaining({ code: 'missing_key', hint: keys.keyHint }));
  });

  it('reads the key through the whole cascade in its order: .env counts once .env.local sets none', async () => {
    const { envFile, keys, facts } = await useRotation();
    const dotEnv = join(dirname(envFile), '.env');
    await writeFile(dotEnv, `MEDIAN_KEY=${OTHER_KEY}\n`);
    await keys.reread();
    expect(facts).toEqual([]); // .env.local comes first and still sets KEY
    await writeFile(envFile, 'OTHER=1\n');
    await keys.reread();
    expect(facts).toEqual([{ type: 'envFile.keyChanged', key: OTHER_KEY, source: dotEnv }]);
  });

  it('a .env read between its truncation and its write is read again: no key removed on the way to the new one', async () => {
    const { envFile, keys, facts } = await useRotation();
    const dotEnv = join(dirname(envFile), '.env');
    await writeFile(envFile, 'OTHER=1\n');
    await writeFile(dotEnv, `MEDIAN_KEY=${KEY}\n`);
    await keys.reread();
    expect(facts).toEqual([]);

    // An editor saving .env in place: the file is empty for a moment (here 60 ms, while the
    // re-read is under way), then holds the new key.
    await writeFile(dotEnv, '');
    const reading = keys.reread();
    await new Promise((resolve) => setTimeout(resolve, 60));
    await writeFile(dotEnv, `MEDIAN_KEY=${OTHER_KEY}\n`);
    await reading;
    expect(facts).toEqual([{ type: 'envFile.keyChanged', key: OTHER_KEY, source: dotEnv }]);
  });

  it("when the environment's key wins, says so once per edit and reports nothing", async () => {
    const { envFile, keys, facts, events } = await useRotation({ keySource: 'env' });
    await writeFile(envFile, `MEDIAN_KEY=${OTHER_KEY}\n`);
    await keys.reread();
    await keys.reread();
    expect(facts).toEqual([]);
    expect(events).toEqual([expect.objectContaining({ event: 'log', level: 'warn', message: expect.stringContaining('wins over the file') })]);
  });
});
