import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signBody, deriveToolSecret, SIGNATURE_HEADER } from '../../src/median/index.js';
import { spawnCli } from '../helpers/cli-harness.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { useHttpServer } from '../helpers/use-http-server.js';

/**
 * Issue 18 item 9: with --redact-visitor, the visitor's email and name were
 * masked only as Median sent them; a route answering the email lower-cased
 * or the name upper-cased had them stored. The route is a real server that
 * echoes the visitor in the usual transforms; nothing of it may reach the
 * store, `show` or a HAR export.
 */
const KEY = `median_key_${'Vz3'.repeat(14)}`;
const EMAIL = 'Ada.Lovelace@Example.COM';
const NAME = 'Ada  Lovelace';

describe('item 9: --redact-visitor matches the visitor in any case and the common transforms', () => {
  it('an answer echoing the email lower-cased and the name upper-cased, title-cased, URL- and form-encoded is redacted', async () => {
    const dir = await useTempDir('median-dev-redact-');
    const dataDir = join(dir, '.median-dev');
    const echoes = [EMAIL.toLowerCase(), EMAIL.toUpperCase(), NAME.toUpperCase(), 'ada lovelace', 'Ada Lovelace', encodeURIComponent(EMAIL.toLowerCase()), 'ADA+LOVELACE'];
    const route = await useHttpServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ result: { greeting: `Hello ${echoes.join(' / ')}`, next: `https://app.example/u?e=${encodeURIComponent(EMAIL.toLowerCase())}` } }));
    });
    const cli = spawnCli(['start', '--json', '--no-tui', '--no-inspector', '--redact-visitor', '--tunnel', 'none', '--public-url', 'https://tools.example.test', '--port', '0', '--no-env-file', '--target', route.url, '--median-api', 'http://127.0.0.1:9', '--data-dir', dataDir], { cwd: dir, env: { MEDIAN_KEY: KEY } });
    const proxy = (await cli.waitForEvent((e) => e.event === 'proxy')).url as string;
    const toolCallId = 'call_0123456789abcdef0123456789abcdef';
    const body = JSON.stringify({ tool: 'lookupCustomer', toolCallId, input: {}, context: { conversationId: 'conv_1', risk: 'low', visitor: { verified: true, email: EMAIL, name: NAME } } });
    const answer = await fetch(`${proxy}/api/median`, { method: 'POST', headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(deriveToolSecret(KEY), body) }, body });
    expect(answer.status).toBe(200);
    await cli.waitForEvent((e) => e.event === 'call');
    await cli.stop();

    const show = spawnCli(['show', toolCallId, '--json', '--data-dir', dataDir], { cwd: dir });
    expect(await show.exited).toBe(0);
    const har = spawnCli(['export', '--har', '-', '--data-dir', dataDir], { cwd: dir });
    expect(await har.exited).toBe(0);
    for (const text of [show.stdout(), har.stdout()]) {
      expect(text).toContain('[redacted]');
      expect(text.toLowerCase()).not.toContain('lovelace');
    }
  }, 40_000);
});
