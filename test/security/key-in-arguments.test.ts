import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveToolSecret } from '../../src/median/index.js';
import { runCliInProcess } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';

/**
 * Break 9: commander's own messages echo the argument they refuse, and
 * `call <tool>` echoed the tool name: a key pasted into the wrong place was
 * printed. Every line the CLI prints passes the masker, for the key from the
 * environment or from the env file, and for MEDIAN_TOOL_SECRET.
 */
const KEY = `median_key_${'k3Y9pQ2w'.repeat(4)}`;
const TOOL_SECRET = 'ab12'.repeat(16);
const DERIVED = deriveToolSecret(KEY).toString('hex');

const CASES: Array<[string, (secret: string) => string[]]> = [
  ['start --tunnel <secret>', (s) => ['start', '--tunnel', s]],
  ['calls --verdict <secret>', (s) => ['calls', '--verdict', s]],
  ['an unknown option --<secret>', (s) => ['calls', `--${s}`]],
  ['an unknown command <secret>', (s) => [s]],
];

describe('break 9: no secret in what the CLI prints about its arguments', () => {
  for (const where of ['environment', 'env file'] as const) {
    for (const [secretName, secret] of [
      ['the key', KEY],
      ['MEDIAN_TOOL_SECRET', TOOL_SECRET],
      ['the derived secret', DERIVED],
    ] as const) {
      it.each(CASES)(`%s, with ${secretName} from the ${where}`, async (_name, argv) => {
        const dir = await useTempDir('median-dev-args-');
        const vars = { MEDIAN_KEY: KEY, MEDIAN_TOOL_SECRET: TOOL_SECRET };
        if (where === 'env file') await writeFile(join(dir, '.env.local'), `MEDIAN_KEY=${KEY}\nMEDIAN_TOOL_SECRET=${TOOL_SECRET}\n`);
        const run = await runCliInProcess(argv(secret), { cwd: dir, env: where === 'environment' ? vars : {} });
        expect(run.code).toBe(2);
        expect(`${run.stdout}${run.stderr}`).not.toContain(secret);
        expect(`${run.stdout}${run.stderr}`).not.toContain(secret.slice(0, 16));
        expect(run.stderr).toMatch(/\*\*\*\*/);
      });
    }
  }

  it('call <key>: the header line and the --json tool field are masked', async () => {
    const dir = await useTempDir('median-dev-args-');
    // No route listens on this port: the call fails after printing nothing but masked text.
    for (const json of [false, true]) {
      const run = await runCliInProcess(['call', KEY, '--target', 'http://127.0.0.1:9', '--data-dir', join(dir, 'd'), ...(json ? ['--json'] : [])], {
        cwd: dir,
        env: { MEDIAN_KEY: KEY },
      });
      expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);
      expect([0, 1]).toContain(run.code);
    }
  });
});
