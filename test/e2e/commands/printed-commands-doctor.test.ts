import { spawn } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { spawnCli } from '../../helpers/cli-harness.js';
import { EXAMPLE_ROUTE, useE2eWorld, useTempDir, waitForEventAfter } from '../../helpers/e2e-world.js';
import { useTeardown } from '../../helpers/use-teardown.js';

/** A printed command line, pasted into a shell in `cwd` whose environment is `env` (the terminal doctor ran in). */
function paste(line: string, cwd: string, env: Record<string, string>) {
  const child = spawn('sh', ['-c', line], { cwd, env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env }, detached: true });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Ctrl-C first, as a user would: a median-dev killed at once could not stop its dev server (a group of its own).
  useTeardown(child, async (c) => {
    if (c.exitCode !== null || c.signalCode !== null) return;
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-c.pid!, signal);
      } catch {
        /* The group is gone already. */
      }
    };
    signalGroup('SIGINT');
    const killLater = setTimeout(() => signalGroup('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killLater);
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += String(c)));
  child.stderr.on('data', (c) => (stderr += String(c)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Every `…` command the text names that runs median-dev (the CLI as the tests run it: node …/main.js). */
function commandsIn(text: string): string[] {
  return [...text.matchAll(/`((?:median-dev|node \S+main\.js) [^`]+)`/g)].map((m) => m[1]!);
}

describe("doctor's fixes work when pasted", () => {
  it('from another folder, each command a fix names carries the data dir and env file, and the start line starts this project', async () => {
    const world = await useE2eWorld();
    const first = world.start();
    await waitForEventAfter(first, 0, 'endpoint', { action: 'synced' }, 30_000);
    expect(await first.stop('SIGINT')).toBe(0);

    // The user's terminal: another folder, the Median API and the route's port in its environment.
    const elsewhere = await useTempDir('median-dev-doctor-paste-');
    const env = { MEDIAN_API_URL: world.emulator.url, PORT: String(world.routePort), HOST: '127.0.0.1' };
    const doctor = spawnCli(['doctor', '--data-dir', world.dataDir, '--env', world.envFile], { cwd: elsewhere, env });
    await doctor.exited;
    const printed = doctor.stdout();
    const commands = commandsIn(printed);
    expect(commands.length, printed).toBeGreaterThan(0);
    for (const command of commands) expect(command, printed).toContain(`--data-dir ${world.dataDir}`);

    // Not running: the start line, with the dev server's command in place of its placeholder, starts this project again.
    const start = commands.find((c) => / start .*-- /.test(c));
    expect(start, printed).toBeDefined();
    const line = start!.replace(/ -- .*$/, ` -- ${process.execPath} ${EXAMPLE_ROUTE}`);
    // exec: the Ctrl-C reaches median-dev itself, as in a terminal, and its exit status is the shell's.
    const pasted = paste('exec ' + line.replace(' start ', ` start --no-tui --json --port 0 --inspector-port 0 --tunnel-host ${world.tunnelServer.url} `), elsewhere, env);
    await vi.waitFor(() => expect(pasted.stdout()).toMatch(/"event":"endpoint",.*"action":"synced"/), { timeout: 30_000, interval: 100 });
    process.kill(-pasted.child.pid!, 'SIGINT');
    expect(await pasted.exited).toBe(0);
    expect(pasted.stderr()).not.toContain('missing_key');

    // Every other command a fix names runs against this project's data dir (no missing key, no unknown flag).
    for (const command of commands.filter((c) => c !== start && !/[<…]/.test(c))) {
      const run = paste(command, elsewhere, env);
      await run.exited;
      expect(run.stderr(), command).not.toMatch(/missing_key|unknown option|no_data_dir/);
    }

    // An error's hint too: `show` of an unknown id names `calls`, which lists this project's calls when pasted.
    const missing = spawnCli(['show', 'rec_00000000000000000000nope', '--data-dir', world.dataDir, '--env', world.envFile], { cwd: elsewhere, env });
    expect(await missing.exited).toBe(1);
    expect(missing.stderr()).toContain('[call_not_found]');
    const [calls] = commandsIn(missing.stderr());
    expect(calls, missing.stderr()).toContain(`calls --data-dir ${world.dataDir}`);
    const listed = paste(calls!, elsewhere, env);
    expect(await listed.exited, listed.stderr()).toBe(0);
    expect(listed.stdout()).toMatch(/manifest +200/);
  }, 120_000);
});
