import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveToolSecret } from '../../src/median/index.js';
import { spawnCli } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { useHttpServer } from '../helpers/use-http-server.js';

/**
 * Issue 18 item 8: secrets straddling a cut. A dev-server output line over
 * 64 KiB cut through the key printed the whole key across the two pieces;
 * an answer with the derived secret straddling the 1 MiB recording limit kept
 * 32 of its hex characters in the store, `show` and HAR; a JSON body spelling
 * the key with `\u` escapes (all characters or some, either hex case) was
 * stored unmasked. A real daemon, a real dev server printing, a real route.
 */
const KEY = `median_key_${'Qw8'.repeat(14)}`;
const SECRET_HEX = Buffer.from(deriveToolSecret(KEY)).toString('hex');
const LIMIT = 1024 * 1024;

const escapeAll = (text: string, upper: boolean) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).map((e) => (upper ? e.toUpperCase().replace('\\U', '\\u') : e)).join('');
const escapeSome = (text: string) => [...text].map((c, i) => (i % 3 === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}` : c)).join('');

describe('item 8: secrets straddling a cut, and \\u-escaped keys', () => {
  it('no piece of the key or the derived secret survives a cut, and no \\u spelling of the key is stored', async () => {
    const dir = await useTempDir('median-dev-cuts-');
    const dataDir = join(dir, '.median-dev');
    const route = await useHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'text/plain');
        // The derived secret starts 32 characters before the 1 MiB limit.
        res.end(`${'a'.repeat(LIMIT - 32)}${SECRET_HEX}tail`);
      });
    });
    // The dev server prints one line of 64 KiB + 100 with the key across the 64 KiB mark.
    const printer = `process.stdout.write('x'.repeat(65536 - 20) + process.env.MEDIAN_KEY + 'y'.repeat(100) + '\\n'); setInterval(() => {}, 1000);`;
    const cli = spawnCli(
      ['start', '--json', '--no-tui', '--no-inspector', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--no-env-file', '--target', route.url, '--median-api', 'http://127.0.0.1:9', '--data-dir', dataDir, '--', process.execPath, '-e', printer],
      { cwd: dir, env: { MEDIAN_KEY: KEY } },
    );
    const proxy = (await cli.waitForEvent((e) => e.event === 'proxy')).url as string;
    const bodies = [
      `{"note":"${escapeAll(KEY, false)}"}`,
      `{"note":"${escapeAll(KEY, true)}"}`,
      `{"note":"${escapeSome(KEY)}"}`,
      `{"note":"${escapeSome(KEY).replace('median', 'medi\\u0061n')}"}`,
    ];
    for (const body of bodies) {
      const answer = await fetch(`${proxy}/api/median`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await answer.text();
    }
    await cli.waitForEvent(() => cli.events().filter((e) => e.event === 'call').length === bodies.length);
    await cli.stop();

    // The dev server's line, in pieces on stderr: joined back, no key.
    const pieces = cli.stderr().split('\n').filter((line) => line.startsWith('[dev] ')).map((line) => line.slice('[dev] '.length));
    expect(pieces.join('').length).toBeGreaterThan(65536);
    expect(pieces.join('')).not.toContain(KEY.slice(11, 20));

    const segments = await readdir(join(dataDir, 'calls'));
    const stored = (await Promise.all(segments.map((name) => readFile(join(dataDir, 'calls', name), 'utf8')))).join('');
    const show = spawnCli(['calls', '--json', '--limit', '10', '--data-dir', dataDir], { cwd: dir });
    expect(await show.exited).toBe(0);
    const har = spawnCli(['export', '--har', '-', '--data-dir', dataDir], { cwd: dir });
    expect(await har.exited).toBe(0);
    for (const text of [stored, show.stdout(), har.stdout()]) {
      expect(text).not.toContain(SECRET_HEX.slice(0, 8));
      // Every \u escape read (stored bodies are JSON inside JSON: their backslashes are escaped too): no key.
      const read = text.replace(/\\+u([0-9a-fA-F]{4})/g, (_all, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
      expect(read).not.toContain(KEY.slice(11, 20));
    }
  }, 60_000);
});
