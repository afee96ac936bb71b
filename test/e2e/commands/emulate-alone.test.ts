import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { spawnCli, type SpawnedCli } from '../../helpers/cli-harness.js';
import { EXAMPLE_ROUTE, freePort, isEvent, useTempDir } from '../../helpers/e2e-world.js';
import { useTunnelServer } from '../../helpers/use-tunnel-server.js';

/** The words of a banner line after `marker`, quotes removed (the banner quotes only paths with spaces). */
function wordsAfter(text: string, marker: string): string[] {
  const line = text.split('\n').find((l) => l.includes(marker));
  if (!line) throw new Error(`No line with "${marker}" in:\n${text}`);
  const rest = line.slice(line.indexOf(marker) + marker.length);
  return [...rest.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!));
}

async function bannerOf(cli: SpawnedCli): Promise<string> {
  await vi.waitFor(() => expect(cli.stdout()).toContain('Ctrl-C stops the emulator.'), { timeout: 15_000 });
  return cli.stdout();
}

describe('median-dev emulate alone, as a newcomer with their own app follows it', () => {
  it('the banner’s own commands: start against it through a self-hosted tunnel server, then emulate call, recorded by start', async () => {
    // A self-hosted localtunnel server under a domain nothing resolves: only --tunnel-domain reaches it.
    const tunnelServer = await useTunnelServer({ domain: 'lt.example.test' });
    const projectDir = await useTempDir('median-dev-emulate-');
    const emulatorDir = join(projectDir, 'emulator state');
    const emulate = spawnCli(['emulate', '--port', '0', '--data-dir', emulatorDir, '--tunnel-domain', `lt.example.test=127.0.0.1:${tunnelServer.port}`], {
      cwd: projectDir,
    });
    const banner = await bannerOf(emulate);
    expect(banner).toContain(`tunnel *.lt.example.test → http://127.0.0.1:${tunnelServer.port}`);

    // Step 1, literally: the banner's start flags; the app's own part is where it listens and its command.
    const startFlags = wordsAfter(banner, ' start ');
    const dash = startFlags.indexOf('--');
    expect(startFlags.slice(dash)).toEqual(['--', 'npm', 'run', 'dev']);
    const routePort = await freePort();
    const start = spawnCli(
      ['start', ...startFlags.slice(0, dash), '--json', '--port', '0', '--no-inspector', '--target', `http://127.0.0.1:${routePort}`, '--', process.execPath, EXAMPLE_ROUTE],
      { cwd: projectDir, env: { PORT: String(routePort), HOST: '127.0.0.1' } },
    );
    const synced = await start.waitForEvent((e) => isEvent(e, 'endpoint', { action: 'synced' }), 30_000);
    expect(String(synced.url)).toMatch(/^https:\/\/[a-z0-9-]+\.lt\.example\.test\/api\/median$/);

    // Step 2, literally: `emulate call <tool> --data-dir <dir>`, the optional [--input …] left out.
    const callWords = wordsAfter(banner, ' emulate call ');
    const callFlags = callWords.slice(1, callWords.findIndex((w) => w.startsWith('[')));
    expect(callWords[0]).toBe('<tool>');
    expect(callFlags).toEqual(['--data-dir', emulatorDir]);
    const call = spawnCli(['emulate', 'call', 'orderStatus', ...callFlags, '--input', '{"orderNumber":"A1001"}'], { cwd: projectDir });
    expect(await call.exited, call.stderr()).toBe(0);
    const toolCallId = /\b(call_[0-9a-f]{32})\b/.exec(call.stdout())?.[1];
    expect(toolCallId, call.stdout()).toBeDefined();
    expect(call.stdout()).toContain('The agent sees:');
    expect(call.stdout()).toContain(String(synced.url));
    const recorded = await start.waitForEvent((e) => isEvent(e, 'call', { toolCallId }), 15_000);
    expect(recorded).toMatchObject({ tool: 'orderStatus', signature: 'valid', verdict: 'answered' });

    // Without --input the emulator makes one from the tool's schema; --json gives the call whole.
    const sampled = spawnCli(['emulate', 'call', 'orderStatus', ...callFlags, '--json'], { cwd: projectDir });
    expect(await sampled.exited, sampled.stderr()).toBe(0);
    const sampledCall = JSON.parse(sampled.stdout()) as { toolCallId: string; input: Record<string, unknown>; verdict: { kind: string } };
    expect(sampledCall.input).toHaveProperty('orderNumber');
    await start.waitForEvent((e) => isEvent(e, 'call', { toolCallId: sampledCall.toolCallId }), 15_000);

    // A tool that throws: the agent's view is printed and the exit code says it failed, with a code.
    const threw = spawnCli(['emulate', 'call', 'chargeCard', ...callFlags], { cwd: projectDir });
    expect(await threw.exited).toBe(1);
    expect(threw.stdout()).toContain('threw');
    expect(threw.stderr()).toContain('[tool_call_failed]');
    // On a named endpoint (by id), the input from a file; an endpoint Median does not have: its code.
    await writeFile(join(projectDir, 'input.json'), '{"orderNumber":"B2002"}');
    const onEndpoint = spawnCli(['emulate', 'call', 'orderStatus', ...callFlags, '--endpoint', String(synced.id), '--input', '@input.json', '--json'], { cwd: projectDir });
    expect(await onEndpoint.exited, onEndpoint.stderr()).toBe(0);
    expect(JSON.parse(onEndpoint.stdout())).toMatchObject({ endpointUrl: synced.url, input: { orderNumber: 'B2002' } });
    const noEndpoint = spawnCli(['emulate', 'call', 'orderStatus', ...callFlags, '--endpoint', 'tep_000000000000000000000000'], { cwd: projectDir });
    expect(await noEndpoint.exited).toBe(1);
    expect(noEndpoint.stderr()).toContain('[endpoint_not_found]');
    // A tool no endpoint has: the docs' code.
    const unknown = spawnCli(['emulate', 'call', 'noSuchTool', ...callFlags], { cwd: projectDir });
    expect(await unknown.exited).toBe(1);
    expect(unknown.stderr()).toContain('[tool_not_found]');

    await start.stop();
    await emulate.stop();
    const gone = spawnCli(['emulate', 'call', 'orderStatus', ...callFlags], { cwd: projectDir });
    expect(await gone.exited).toBe(1);
    expect(gone.stderr()).toContain('[emulator_not_running]');
    // Eleven processes one after another (its own waits go to 30 s): ~6 s on a quiet machine, past 20 s at load 12.
  }, 60_000);

  it('keeps its key in <data dir>/emulator.env (0600) and reuses it on the next run', async () => {
    const dataDir = join(await useTempDir('median-dev-emulate-dir-'), 'state');
    const first = spawnCli(['emulate', '--port', '0', '--json', '--data-dir', dataDir]);
    const started = await first.waitForEvent((e) => isEvent(e, 'emulator'));
    expect(started.envFile).toBe(join(dataDir, 'emulator.env'));
    const text = await readFile(join(dataDir, 'emulator.env'), 'utf8');
    expect(text).toContain(`MEDIAN_KEY=${String(started.key)}\n`);
    expect(text).toContain(`MEDIAN_API_URL=${String(started.url)}\n`);
    if (process.platform !== 'win32') expect((await stat(join(dataDir, 'emulator.env'))).mode & 0o777).toBe(0o600);
    expect(await first.stop()).toBe(0);

    const second = spawnCli(['emulate', '--port', '0', '--json', '--data-dir', dataDir]);
    const again = await second.waitForEvent((e) => isEvent(e, 'emulator'));
    expect(again.key).toBe(started.key);
    expect(await second.stop()).toBe(0);
  });

  it('a new data dir in a git checkout goes into its .gitignore (it holds a key), as start does', async () => {
    const projectDir = await useTempDir('median-dev-emulate-git-');
    await mkdir(join(projectDir, '.git'));
    const cli = spawnCli(['emulate', '--port', '0', '--json'], { cwd: projectDir });
    const started = await cli.waitForEvent((e) => isEvent(e, 'emulator'));
    expect(started.envFile).toBe(join(projectDir, '.median-dev', 'emulator.env'));
    expect(started.note).toEqual(expect.stringContaining('.gitignore'));
    expect((await readFile(join(projectDir, '.gitignore'), 'utf8')).split('\n')).toContain('/.median-dev/');
    expect(await cli.stop()).toBe(0);
  });

  it('a key from the environment is used and never written to the data dir', async () => {
    const dataDir = await useTempDir('median-dev-emulate-envkey-');
    const key = `median_key_${'k'.repeat(40)}`;
    const cli = spawnCli(['emulate', '--port', '0', '--json', '--data-dir', dataDir], { env: { MEDIAN_KEY: key } });
    const started = await cli.waitForEvent((e) => isEvent(e, 'emulator'));
    expect(started.key).toBeUndefined();
    expect(await readFile(join(dataDir, 'emulator.env'), 'utf8')).not.toContain(key);
    expect(await cli.stop()).toBe(0);
  });

  it.each([
    ['no equals sign', 'lt.example.test'],
    ['no port', 'lt.example.test=127.0.0.1'],
    ['not a domain', 'lt example=127.0.0.1:8080'],
    ['a port out of range', 'lt.example.test=127.0.0.1:70000'],
  ])('--tunnel-domain with %s is a usage error showing the right form', async (_why, value) => {
    const cli = spawnCli(['emulate', '--port', '0', '--data-dir', await useTempDir('median-dev-emulate-bad-'), '--tunnel-domain', value]);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('[invalid_tunnel_domain]');
    expect(cli.stderr()).toContain('<domain>=<host>:<port>');
  });
});
