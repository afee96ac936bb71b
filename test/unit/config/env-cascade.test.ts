import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_CASCADE, resolveConfig } from '../../../src/config/index.js';
import { useTeardown } from '../../helpers/use-teardown.js';

async function useDir(): Promise<string> {
  return useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-cascade-')), (d) => rm(d, { recursive: true, force: true }));
}

const key = (tag: string) => `median_key_${tag.padEnd(32, '0')}`;

describe('MEDIAN_KEY is read the way Next.js and dotenv-flow read env files', () => {
  it.each(ENV_CASCADE.map((file, index) => [file, ENV_CASCADE.slice(index)] as const))(
    'with the key in %s and every later file, that file wins',
    async (winner, files) => {
      const cwd = await useDir();
      for (const file of files) await writeFile(join(cwd, file), `MEDIAN_KEY=${key(file.replace(/\W/g, ''))}\n`);
      const config = await resolveConfig({}, { env: {}, cwd });
      expect(config.medianKey).toBe(key(winner.replace(/\W/g, '')));
      expect(config.keySource).toBe('env-file');
      expect(config.keyFile).toBe(join(cwd, winner));
      // The env file median-dev writes stays .env.local.
      expect(config.envFile).toBe(join(cwd, '.env.local'));
    },
  );

  it('the process environment wins over every file', async () => {
    const cwd = await useDir();
    await writeFile(join(cwd, '.env'), `MEDIAN_KEY=${key('file')}\n`);
    const config = await resolveConfig({}, { env: { MEDIAN_KEY: key('env') }, cwd });
    expect(config).toMatchObject({ medianKey: key('env'), keySource: 'env', keyFile: undefined });
  });

  it('an empty MEDIAN_KEY= in .env.local does not hide the key in .env', async () => {
    const cwd = await useDir();
    await writeFile(join(cwd, '.env.local'), 'MEDIAN_KEY=\nMEDIAN_TOOLS_URL=https://x.loca.lt/api/median\n');
    await writeFile(join(cwd, '.env'), `MEDIAN_KEY=${key('shared')}\nMEDIAN_API_URL=http://127.0.0.1:4100\n`);
    const config = await resolveConfig({}, { env: {}, cwd });
    expect(config).toMatchObject({ medianKey: key('shared'), keyFile: join(cwd, '.env'), medianApi: 'http://127.0.0.1:4100' });
  });

  it('an env file the user named comes first, then the cascade beside it', async () => {
    const cwd = await useDir();
    await mkdir(join(cwd, 'web'));
    await writeFile(join(cwd, 'web', '.env'), `MEDIAN_KEY=${key('webdotenv')}\n`);
    const named = await resolveConfig({ envFile: 'web/dev.env' }, { env: {}, cwd });
    expect(named).toMatchObject({ medianKey: key('webdotenv'), keyFile: join(cwd, 'web', '.env'), envFile: join(cwd, 'web', 'dev.env') });
    await writeFile(join(cwd, 'web', 'dev.env'), `MEDIAN_KEY=${key('named')}\n`);
    expect(await resolveConfig({ envFile: 'web/dev.env' }, { env: {}, cwd })).toMatchObject({ medianKey: key('named'), keyFile: join(cwd, 'web', 'dev.env') });
  });

  it('--no-env-file reads no file', async () => {
    const cwd = await useDir();
    await writeFile(join(cwd, '.env'), `MEDIAN_KEY=${key('file')}\n`);
    const config = await resolveConfig({ envFile: false }, { env: {}, cwd });
    expect(config.medianKey).toBeUndefined();
  });
});
