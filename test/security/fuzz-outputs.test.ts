import { request } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { attachTui } from '../../src/cli/attach-tui.js';
import { resolveConfig } from '../../src/config/index.js';
import { WebSocket } from 'ws';
import { connectToDaemon } from '../../src/control/index.js';
import { deriveToolSecret, signBody, SIGNATURE_HEADER } from '../../src/median/index.js';
import { runCliInProcess, spawnCli, type SpawnedCli } from '../helpers/cli-harness.js';
import { useE2eWorld, type E2eWorld } from '../helpers/e2e-world.js';
import { fakeTty, ttyIo } from '../helpers/terminal-streams.js';
import { useTeardown } from '../helpers/use-teardown.js';

/**
 * The battery's fuzz pass (issue #11): random bytes, random control
 * characters and random unicode in every field of a tool call, some holding
 * a secret in one of its spellings, sent through the real proxy; then every
 * output surface is read back. Nowhere may a secret appear in any form, nor a
 * raw control character outside JSON escapes; every command exits 0, 1 or 2
 * without a stack trace. Break 1 (MEDIAN_TOOL_SECRET and the derived secret
 * stored in clear) is checked by name on the same run.
 */
const TOOL_SECRET = '9c1e'.repeat(16);
/** Any character a terminal acts on but `\n`, `\t` and the `\r` of `\r\n` (layout). */
const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;
const STACK_LINE = /^\s+at .*:\d+:\d+\)?$/m;

/** A secret in the spellings a leak could take, found independently of the masker's own list. */
function needles(secret: string): string[] {
  const forms = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('base64url')];
  if (/^[0-9a-f]+$/i.test(secret)) forms.push(secret.toUpperCase(), secret.toLowerCase(), Buffer.from(secret, 'hex').toString('base64'));
  // A run of 16 characters from the middle (a secret cut short still leaks most of it).
  forms.push(secret.slice(8, 24));
  return [...new Set(forms)];
}

function spell(secret: string, how: number): string {
  switch (how % 5) {
    case 0:
      return secret;
    case 1:
      return encodeURIComponent(secret);
    case 2:
      return Buffer.from(secret).toString('base64');
    case 3:
      return secret.toUpperCase();
    default:
      return `Bearer ${secret}`;
  }
}

const controls = fc.string({ unit: fc.integer({ min: 0, max: 0x9f }).filter((c) => c < 0x20 || c >= 0x7f).map((c) => String.fromCharCode(c)), maxLength: 12 });
const weirdText = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), controls, fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constant('\u001b]0;PWNED\u0007\u001b[2J\u001b[31mevil\u009b8m\u202e'));

/** One field's value: weird text, sometimes with a secret spelled inside it. */
function fieldValue(secrets: readonly string[]): fc.Arbitrary<string> {
  return fc.tuple(weirdText, fc.option(fc.tuple(fc.constantFrom(...secrets), fc.nat(4)), { nil: undefined }), weirdText).map(([a, secret, b]) =>
    secret ? `${a}${spell(secret[0], secret[1])}${b}` : `${a}${b}`,
  );
}

interface FuzzRequest {
  body: Buffer;
  headers: Record<string, string>;
}

function fuzzRequests(secrets: readonly string[], signingKey: string, count: number): FuzzRequest[] {
  const value = fieldValue(secrets);
  const toolCall = fc.record({
    tool: value,
    toolCallId: value,
    input: fc.dictionary(value, fc.oneof(value, fc.integer(), fc.array(value, { maxLength: 3 })), { maxKeys: 4 }),
    context: fc.record({ conversationId: value, risk: fc.oneof(fc.constantFrom('low', 'high'), value), visitor: fc.record({ verified: fc.boolean(), email: value, name: value }) }),
  });
  const body = fc.oneof(
    { weight: 4, arbitrary: toolCall.map((call) => Buffer.from(JSON.stringify(call))) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: value.map((text) => Buffer.from(text, 'latin1')) },
  );
  const header = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 30 });
  const secret = deriveToolSecret(signingKey);
  return fc.sample(
    fc.tuple(body, fc.option(fc.tuple(fc.constantFrom(...secrets), fc.nat(4)), { nil: undefined }), header).map(([bytes, inHeader, note]) => ({
      body: bytes,
      headers: {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: signBody(secret, bytes.toString('utf8')),
        'x-note': inHeader ? `${note}${spell(inHeader[0], inHeader[1])}` : note,
      },
    })),
    { numRuns: count },
  );
}

function send(proxyUrl: string, path: string, fuzz: FuzzRequest): Promise<number> {
  const url = new URL(path, proxyUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...fuzz.headers, 'content-length': String(fuzz.body.length) }, agent: false, timeout: 15_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in time')));
    req.on('error', reject);
    req.end(fuzz.body);
  });
}

interface Surface {
  where: string;
  text: string;
}

function leaksIn(surfaces: readonly Surface[], secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const { where, text } of surfaces) for (const secret of secrets) for (const needle of needles(secret)) if (text.includes(needle)) found.push(`${where}: ${needle.slice(0, 12)}…`);
  return found;
}

function rawControlsIn(surfaces: readonly Surface[]): string[] {
  return surfaces.filter(({ text }) => RAW_CONTROL.test(text)).map(({ where, text }) => `${where}: ${JSON.stringify(text.slice(Math.max(0, text.search(RAW_CONTROL) - 20), text.search(RAW_CONTROL) + 20))}`);
}

async function startDaemon(world: E2eWorld, json: boolean): Promise<{ cli: SpawnedCli; proxyUrl: string }> {
  const args = world.startArgs(['--tunnel', 'none', '--public-url', 'https://tools.example.test']).filter((arg) => json || arg !== '--json');
  // --tunnel none replaces the tunnel host flag's use; the route child is not needed: the proxy answers 502 for it.
  const cli = spawnCli(args, { cwd: world.projectDir, env: { MEDIAN_API_URL: world.emulator.url } });
  if (json) {
    const proxy = await cli.waitForEvent((e) => e.event === 'proxy');
    return { cli, proxyUrl: String(proxy.url) };
  }
  await vi.waitFor(() => expect(cli.stdout()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/), { timeout: 15_000, interval: 50 });
  return { cli, proxyUrl: /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(cli.stdout())![1]! };
}

/** Every text frame of a control-channel connection, as sent (the token from control.json). */
async function useRawControlFrames(dataDir: string): Promise<string[]> {
  const { port, token } = JSON.parse(await readFile(join(dataDir, 'control.json'), 'utf8')) as { port: number; token: string };
  const frames: string[] = [];
  const socket = new WebSocket(`ws://127.0.0.1:${port}/`, { headers: { authorization: `Bearer ${token}` } });
  useTeardown(socket, (s) => s.terminate());
  socket.on('message', (data) => frames.push(String(data)));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return frames;
}

describe('the fuzz pass: hostile calls, every output surface', () => {
  it('no secret in any form, no raw control character, every command exits 0/1/2 without a stack trace', { timeout: 180_000 }, async () => {
    const world = await useE2eWorld({ envFileText: (key) => `MEDIAN_KEY=${key}\nMEDIAN_TOOL_SECRET=${TOOL_SECRET}\n` });
    const key = world.emulator.key;
    const derived = deriveToolSecret(key).toString('hex');
    const secrets = [key, TOOL_SECRET, derived];
    const surfaces: Surface[] = [];
    const exits: Array<{ where: string; code: number; stderr: string }> = [];
    const run = async (label: string, argv: string[]) => {
      const result = await runCliInProcess([...argv, '--data-dir', world.dataDir, '--env-file', world.envFile], { cwd: world.projectDir });
      surfaces.push({ where: `${label} stdout`, text: result.stdout }, { where: `${label} stderr`, text: result.stderr });
      exits.push({ where: label, code: result.code, stderr: result.stderr });
      return result;
    };

    // Daemon one: --json events, the control snapshot and frames, the TUI.
    const { cli, proxyUrl } = await startDaemon(world, true);
    // The control channel's frames as they are on the wire (snapshot first), by a plain WebSocket client.
    const frames = await useRawControlFrames(world.dataDir);
    const tty = fakeTty(140, 50);
    const io = ttyIo(tty, world.projectDir);
    const config = await resolveConfig({ dataDir: world.dataDir, envFile: world.envFile }, { env: {}, cwd: world.projectDir });
    const tui = useTeardown(attachTui(await connectToDaemon(world.dataDir), io, { config, isDemo: false, onQuit: () => undefined }), (t) => t.close());

    // Break 1, by name: the tool secret and the derived secret as the input of a signed call.
    const named: FuzzRequest = {
      body: Buffer.from(JSON.stringify({ tool: 'orderStatus', toolCallId: 'call_break1', input: { a: TOOL_SECRET, b: derived, c: Buffer.from(TOOL_SECRET, 'hex').toString('base64') }, context: { risk: 'low' } })),
      headers: { 'content-type': 'application/json' },
    };
    const requests = [named, ...fuzzRequests(secrets, key, 40)];
    for (const [i, fuzz] of requests.entries()) await send(proxyUrl, i % 4 === 3 ? '/elsewhere' : '/api/median', fuzz);
    await vi.waitFor(async () => expect((await run('calls --json (count)', ['calls', '--json', '--limit', '1000'])).stdout.match(/"id": "rec_/g)?.length ?? 0).toBeGreaterThanOrEqual(requests.length), {
      timeout: 20_000,
      interval: 200,
    });

    const list = JSON.parse((await run('calls --json', ['calls', '--json', '--limit', '1000'])).stdout) as Array<{ id: string; toolCallId: string }>;
    await run('calls', ['calls', '--limit', '1000']);
    for (const record of list.slice(0, 25)) {
      await run(`show ${record.id}`, ['show', record.id]);
      await run(`show ${record.id} --json`, ['show', record.id, '--json']);
      await run(`show ${record.id} --curl`, ['show', record.id, '--curl']);
    }
    await run('show call_break1', ['show', 'call_break1']);
    await run('export --har -', ['export', '--har', '-']);
    await run('export --har file', ['export', '--har', join(world.projectDir, 'calls.har')]);
    surfaces.push({ where: 'calls.har', text: await readFile(join(world.projectDir, 'calls.har'), 'utf8') });
    // Odd ids as arguments: commands answer with a coded error, never a stack.
    for (const arg of fc.sample(fieldValue(secrets).filter((s) => s.length > 0 && !s.startsWith('-')), { numRuns: 8 })) await run('show <fuzz>', ['show', arg]);

    const late = await useRawControlFrames(world.dataDir);
    await vi.waitFor(() => expect(late.length).toBeGreaterThan(0));
    surfaces.push({ where: 'control snapshot', text: late[0]! });
    surfaces.push(...frames.map((text, i) => ({ where: `control frame ${i}`, text })));

    // The TUI: each call's row and its detail, as the cells on the screen.
    const t = tui.tui;
    await vi.waitFor(() => expect(t.state.records.length).toBeGreaterThanOrEqual(requests.length), { timeout: 10_000 });
    const screens: string[] = [];
    t.dispatch({ type: 'key', key: 'g' });
    for (let row = 0; row < 20; row++) {
      t.dispatch({ type: 'key', key: 'enter' });
      screens.push(t.screenText().join('\n'));
      t.dispatch({ type: 'key', key: 'escape' });
      t.dispatch({ type: 'key', key: 'down' });
    }
    surfaces.push(...screens.map((text, i) => ({ where: `TUI screen ${i}`, text })));
    await tui.close();

    expect(await cli.stop()).toBe(0);
    surfaces.push({ where: 'start --json stdout', text: cli.stdout() }, { where: 'start --json stderr', text: cli.stderr() });
    const recordings = await readFile(join(world.dataDir, 'calls', 'calls-000001.jsonl'), 'utf8');
    surfaces.push({ where: 'calls-000001.jsonl', text: recordings });

    // Daemon two: the --no-tui log, with a few of the same calls.
    const plain = await startDaemon(world, false);
    for (const fuzz of requests.slice(0, 12)) await send(plain.proxyUrl, '/api/median', fuzz);
    await vi.waitFor(() => expect(plain.cli.stdout().match(/^call /gm)?.length ?? 0).toBeGreaterThanOrEqual(12), { timeout: 20_000, interval: 100 });
    expect(await plain.cli.stop()).toBe(0);
    surfaces.push({ where: 'start --no-tui stdout', text: plain.cli.stdout() }, { where: 'start --no-tui stderr', text: plain.cli.stderr() });

    expect(leaksIn(surfaces, secrets)).toEqual([]);
    expect(leaksIn([{ where: 'TUI terminal output', text: tty.captured() }], secrets)).toEqual([]);
    expect(rawControlsIn(surfaces)).toEqual([]);
    expect(exits.filter((e) => ![0, 1, 2].includes(e.code) || STACK_LINE.test(e.stderr))).toEqual([]);

    // The search looked at the right things: break 1's call is there, its secrets masked.
    expect(recordings).toContain('call_break1');
    expect(recordings).toContain(`****${TOOL_SECRET.slice(-4)}`);
    expect(recordings).toContain(`****${derived.slice(-4)}`);
    expect(surfaces.find((s) => s.where === 'show call_break1 stdout')?.text).toContain(`****${TOOL_SECRET.slice(-4)}`);
    expect(surfaces.find((s) => s.where === 'calls.har')?.text).toContain('call_break1');
    expect(surfaces.find((s) => s.where === 'control snapshot')?.text).toContain('call_break1');
    expect(screens.join('\n').length).toBeGreaterThan(1000);
  });
});
