import { mkdir, writeFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/cli-io.js';
import { commandHandlers } from '../../../src/cli/command-handlers.js';
import { runCli } from '../../../src/cli/run-cli.js';
import { KEY_MESSAGES } from '../../../src/median/index.js';
import { runCliInProcess, silentIo, spawnCli } from '../../helpers/cli-harness.js';
import { useTempDir } from '../../helpers/e2e-world.js';

/** A stack frame line, as Node prints them. */
const STACK_LINE = /^\s+at /m;
const GOOD_KEY = `median_key_${'a1B2c3D4'.repeat(4)}`;
const WRONG_PREFIX_KEY = 'sk_live_0123456789abcdef0123456789abcdef';
const SHORT_KEY = 'median_key_tooShort1';

interface Project {
  dir: string;
  dataDir: string;
}

async function useProject(): Promise<Project> {
  const dir = await useTempDir('median-dev-hostile-');
  return { dir, dataDir: join(dir, '.median-dev') };
}

interface Case {
  argv: (p: Project) => string[];
  env?: Record<string, string>;
  setup?: (p: Project) => Promise<void>;
  exitCode: 1 | 2;
  /** Our error code, printed as `[code]`; absent for commander's own usage errors. */
  code?: string;
  /** Text the message must hold (the docs' exact words where they exist). */
  says?: string | RegExp;
  /** The command has no --json. */
  hasNoJson?: boolean;
}

const writeState = (text: string) => async (p: Project) => {
  await mkdir(p.dataDir, { recursive: true });
  await writeFile(join(p.dataDir, 'state.json'), text);
};

const CASES: Record<string, Case> = {
  'an unknown option': { argv: () => ['calls', '--bogus'], exitCode: 2, says: "unknown option '--bogus'" },
  'an unknown command': { argv: () => ['frobnicate'], exitCode: 2, says: "unknown command 'frobnicate'" },
  'a missing argument': { argv: () => ['show'], exitCode: 2, says: 'missing required argument' },
  'a value outside the choices': { argv: () => ['calls', '--verdict', 'maybe'], exitCode: 2, says: 'Allowed choices' },
  '--limit that is not a number': { argv: () => ['calls', '--limit', 'ten'], exitCode: 2, code: 'invalid_number' },
  '--port out of range': { argv: () => ['start', '--tunnel', 'none', '--port', '70000'], exitCode: 2, code: 'invalid_port' },
  '--target that is not a URL': { argv: () => ['calls', '--target', 'localhost:3000'], exitCode: 2, code: 'invalid_url_flag' },
  '--route without a slash': { argv: () => ['calls', '--route', 'api/median'], exitCode: 2, code: 'invalid_route' },
  '--public-url with a tunnel': { argv: () => ['start', '--public-url', 'https://tools.example.com'], exitCode: 2, code: 'public_url_needs_no_tunnel' },
  'a bad --subdomain': { argv: () => ['start', '--subdomain', 'No!'], exitCode: 2, code: 'invalid_subdomain' },
  'bad JSON in --input': {
    argv: () => ['call', 'orderStatus', '--input', '{"orderNumber": '],
    env: { MEDIAN_KEY: GOOD_KEY },
    exitCode: 2,
    code: 'invalid_input_json',
  },
  '--input that is not an object': {
    argv: () => ['call', 'orderStatus', '--input', '[1, 2]'],
    env: { MEDIAN_KEY: GOOD_KEY },
    exitCode: 2,
    code: 'invalid_input_json',
  },
  '--input from a missing file': {
    argv: () => ['call', 'orderStatus', '--input', '@nowhere.json'],
    env: { MEDIAN_KEY: GOOD_KEY },
    exitCode: 2,
    code: 'input_file_unreadable',
  },
  'no MEDIAN_KEY for a call': { argv: () => ['call', 'orderStatus'], exitCode: 1, code: 'missing_key' },
  'no MEDIAN_KEY for endpoints': { argv: () => ['endpoints'], exitCode: 1, code: 'missing_key' },
  'a key that is not a Median key (call)': {
    argv: () => ['call', 'orderStatus'],
    env: { MEDIAN_KEY: WRONG_PREFIX_KEY },
    exitCode: 1,
    code: 'invalid_median_key',
    says: KEY_MESSAGES.wrongPrefix,
  },
  'a key that is not a Median key (endpoints, before any request)': {
    argv: () => ['endpoints', '--median-api', 'http://127.0.0.1:9'],
    env: { MEDIAN_KEY: WRONG_PREFIX_KEY },
    exitCode: 1,
    code: 'invalid_median_key',
    says: KEY_MESSAGES.wrongPrefix,
  },
  'a malformed Median key (call)': {
    argv: () => ['call', 'orderStatus'],
    env: { MEDIAN_KEY: SHORT_KEY },
    exitCode: 1,
    code: 'invalid_median_key',
    says: KEY_MESSAGES.malformed,
  },
  'a malformed Median key (start, before anything starts)': {
    argv: () => ['start', '--tunnel', 'none', '--public-url', 'https://tools.example.com', '--port', '0', '--no-tui'],
    env: { MEDIAN_KEY: SHORT_KEY },
    exitCode: 1,
    code: 'invalid_median_key',
    says: KEY_MESSAGES.malformed,
  },
  'a malformed Median key in the env file (the hint names the file)': {
    argv: () => ['manifest'],
    setup: async (p) => writeFile(join(p.dir, '.env.local'), `MEDIAN_KEY=${SHORT_KEY}\n`),
    exitCode: 1,
    code: 'invalid_median_key',
    says: /MEDIAN_KEY is malformed[\s\S]*\.env\.local/,
  },
  'an env file that cannot be read (a folder in its place)': {
    argv: () => ['calls'],
    setup: async (p) => mkdir(join(p.dir, '.env.local')),
    exitCode: 1,
    code: 'env_file_not_regular',
  },
  '--env-file naming a folder': {
    argv: (p) => ['calls', '--env-file', p.dir],
    exitCode: 1,
    code: 'env_file_not_regular',
  },
  'a data dir from a newer median-dev': {
    argv: () => ['calls'],
    setup: writeState('{"version":99,"target":"http://localhost:3000"}\n'),
    exitCode: 1,
    code: 'data_dir_too_new',
    says: 'state version 99',
  },
  'a state.json that is not JSON': { argv: () => ['calls'], setup: writeState('{"version":1,'), exitCode: 1, code: 'data_dir_corrupt' },
  'a state.json with fields of the wrong type': {
    argv: () => ['calls'],
    setup: writeState('{"version":1,"route":5,"tunnelUrls":"x"}'),
    exitCode: 1,
    code: 'data_dir_corrupt',
  },
  'a data dir path that is a file': {
    argv: () => ['calls'],
    setup: async (p) => writeFile(p.dataDir, 'not a folder'),
    exitCode: 1,
    code: 'data_dir_not_a_folder',
  },
  'a calls folder that is a file': {
    argv: () => ['calls'],
    setup: async (p) => {
      await mkdir(p.dataDir);
      await writeFile(join(p.dataDir, 'calls'), 'not a folder');
    },
    exitCode: 1,
    code: 'store_unreadable',
  },
  'a control file that is not one': {
    argv: () => ['restart'],
    setup: async (p) => {
      await mkdir(p.dataDir);
      await writeFile(join(p.dataDir, 'control.json'), '{"port":"x"}');
    },
    exitCode: 1,
    code: 'control_file_invalid',
    hasNoJson: true,
  },
  'an unknown toolCallId': { argv: () => ['show', 'call_0000'], exitCode: 1, code: 'call_not_found' },
};

async function runCase(c: Case, extra: string[] = []) {
  const project = await useProject();
  await c.setup?.(project);
  const argv = [...c.argv(project), '--data-dir', project.dataDir, ...extra];
  return runCliInProcess(argv, { env: c.env ?? {}, cwd: project.dir });
}

describe('hostile and broken input to the CLI', () => {
  it.each(Object.entries(CASES))('%s: a clear message, the right exit code, no stack trace', async (_name, c) => {
    const run = await runCase(c);
    expect(run.code, run.stderr).toBe(c.exitCode);
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(run.stderr.trim()).not.toBe('');
    if (c.code) expect(run.stderr).toMatch(new RegExp(`^median-dev: .+ \\[${c.code}\\]$`, 'm'));
    if (typeof c.says === 'string') expect(run.stderr).toContain(c.says);
    else if (c.says) expect(run.stderr).toMatch(c.says);
  });

  const coded = Object.entries(CASES).filter(([, c]) => c.code !== undefined);

  it.each(coded.filter(([, c]) => !c.hasNoJson))('%s: --json adds the error as a JSON event on stdout', async (_name, c) => {
    const run = await runCase(c, ['--json']);
    expect(run.code).toBe(c.exitCode);
    const last = run.stdout.trim().split('\n').at(-1) ?? '';
    expect(JSON.parse(last)).toMatchObject({ event: 'error', code: c.code, message: expect.any(String) });
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  it.each(coded)('%s: --debug shows the stack trace', async (_name, c) => {
    const run = await runCase(c, ['--debug']);
    expect(run.code).toBe(c.exitCode);
    expect(run.stderr).toMatch(STACK_LINE);
  });

  it('an unexpected error (a bug) says so, with no stack trace unless --debug', async () => {
    const run = async (argv: string[]) => {
      let stderr = '';
      const errors = new PassThrough().on('data', (chunk) => (stderr += String(chunk)));
      const io: CliIo = { ...silentIo(), stderr: errors, exit: () => undefined };
      // The one seam the CLI offers for this: the command handlers it is built with.
      const handlers = {
        ...commandHandlers,
        calls: async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'verdict')");
        },
      };
      const code = await runCli(argv, io, handlers);
      return { code, stderr };
    };
    const quiet = await run(['calls']);
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).toContain('unexpected error');
    expect(quiet.stderr).toContain('--debug');
    expect(quiet.stderr).not.toMatch(STACK_LINE);
    const debug = await run(['calls', '--debug']);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(STACK_LINE);
  });

  it('an error message never shows a key, even one the input carried', async () => {
    const key = `median_key_${'Zy9'.repeat(12)}`;
    const project = await useProject();
    // A key pasted into the wrong flag: the message quotes the flag's value.
    const run = await runCliInProcess(['calls', '--target', key, '--data-dir', project.dataDir], { env: {}, cwd: project.dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('[invalid_url_flag]');
    expect(run.stderr).not.toContain(key);
    expect(run.stderr).toContain('median_key_****');
  });
});

describe('the built CLI as a real process', () => {
  const spawnIn = async (argv: string[], options: { env?: Record<string, string>; setup?: (p: Project) => Promise<void> } = {}) => {
    const project = await useProject();
    await options.setup?.(project);
    const cli = spawnCli([...argv, '--data-dir', project.dataDir], { cwd: project.dir, ...(options.env ? { env: options.env } : {}) });
    const code = await cli.exited;
    return { code, stdout: cli.stdout(), stderr: cli.stderr() };
  };

  it('exits 2 on a usage error', async () => {
    const run = await spawnIn(['calls', '--bogus']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option '--bogus'");
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  it('exits 1 on an env file it cannot read, with no stack trace', async () => {
    const run = await spawnIn(['calls'], { setup: async (p) => mkdir(join(p.dir, '.env.local')) });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^median-dev: .+ \[env_file_not_regular\]$/m);
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  it('exits 1 on a malformed key at start, before it listens anywhere', async () => {
    const run = await spawnIn(['start', '--tunnel', 'none', '--public-url', 'https://tools.example.com', '--port', '0', '--no-tui'], {
      env: { MEDIAN_KEY: WRONG_PREFIX_KEY },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${KEY_MESSAGES.wrongPrefix} [invalid_median_key]`);
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(run.stdout).toBe('');
  });

  it('shows the stack trace with --debug, and only then', async () => {
    const setup = writeState('{"version":99}');
    const quiet = await spawnIn(['calls'], { setup });
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).toContain('[data_dir_too_new]');
    expect(quiet.stderr).not.toMatch(STACK_LINE);
    const debug = await spawnIn(['calls', '--debug'], { setup });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(STACK_LINE);
  });
});
