import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { binNodeArgs } from '../../../bench/bin-node-args.js';
import { soakCommandLine } from '../../../bench/soak/soak-command-line.js';
import { spawnSoakDaemon } from '../../../bench/soak/soak-daemon.js';
import { BUNDLED_CLI_PATH } from '../../helpers/cli-harness.js';
import { EXAMPLE_ROUTE, useTempDir } from '../../helpers/e2e-world.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// The soak measures the daemon users run: the bin, with its shebang's node options.
describe('the soak runs the CLI as the bin does', () => {
  it('spawns node with the shebang options and the bin', async () => {
    const dir = await useTempDir('median-dev-soak-bin-');
    // Prints what node got as one --json-like event line, the way the soak reads the CLI's stdout.
    const preload = join(dir, 'print-exec-argv.cjs');
    await writeFile(preload, 'process.stdout.write(JSON.stringify({ event: "argv", at: "", execArgv: process.execArgv, entry: process.argv[1] }) + "\\n"); process.exit(0);\n');
    const daemon = spawnSoakDaemon({ cliEntry: BUNDLED_CLI_PATH, args: ['--version'], cwd: dir, env: { PATH: process.env.PATH, NODE_OPTIONS: `--require ${preload}` } });
    onTestFinished(() => daemon.killNow());
    const seen = await daemon.waitForEvent(0, (event) => event.event === 'argv', 15_000);
    const options = binNodeArgs(BUNDLED_CLI_PATH);
    expect(options.length).toBeGreaterThan(0);
    expect(seen.execArgv).toEqual(options);
    expect(seen.entry).toBe(BUNDLED_CLI_PATH);
    expect(daemon.nodeArgv).toEqual([...options, BUNDLED_CLI_PATH, '--version']);
  });

  it('prints that command line, machine parts replaced', () => {
    const tmp = '/tmp/median-dev-soak-x';
    const options = binNodeArgs(BUNDLED_CLI_PATH);
    const line = soakCommandLine({
      nodeArgv: [...options, BUNDLED_CLI_PATH, 'start', '--target', 'http://127.0.0.1:4321', '--data-dir', `${tmp}/p/.median-dev`, '--', process.execPath, EXAMPLE_ROUTE],
      env: { NODE_OPTIONS: `--import ${pathToFileURL(join(REPO_ROOT, 'dist/bench/soak/offline-dns.js')).href}` },
      repoRoot: REPO_ROOT,
      tmpRoot: tmp,
      nodePath: process.execPath,
    });
    expect(line).toBe(
      `NODE_OPTIONS='--import dist/bench/soak/offline-dns.js' node ${options.join(' ')} dist/bin/median-dev.js start --target http://127.0.0.1:<port> ` +
        '--data-dir <tmp>/p/.median-dev -- node dist/examples/tools-route/server.js',
    );
  });
});
