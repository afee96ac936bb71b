import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { deriveToolSecret } from '../../../src/median/key.js';
import { signBody } from '../../../src/median/signature.js';
import { useTeardown } from '../../helpers/use-teardown.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const KEY = `median_key_${'a1'.repeat(20)}`;

type Check = (header: string | undefined, rawBody: string | Buffer, secret: Buffer, now?: number) => string;

/** docs/route-signatures.md's Node code, run as a user would paste it. */
async function docsCode(): Promise<{ toolSecret: (key: string, hex?: string) => Buffer; checkSignature: Check }> {
  const text = readFileSync(join(ROOT, 'docs/route-signatures.md'), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(text)?.[1];
  expect(code).toBeDefined();
  const dir = useTeardown(await mkdtemp(join(tmpdir(), 'median-dev-sigdoc-')), (d) => rm(d, { recursive: true, force: true }));
  const file = join(dir, 'check.mjs');
  await writeFile(file, code!);
  return (await import(pathToFileURL(file).href)) as never;
}

describe('docs/route-signatures.md', () => {
  it('its code checks what median-dev signs, with the codes in the SPEC order', async () => {
    const { toolSecret, checkSignature } = await docsCode();
    const secret = toolSecret(KEY);
    expect(secret.equals(deriveToolSecret(KEY))).toBe(true);
    const body = '{"tool":"orderStatus","toolCallId":"call_1","input":{},"context":{}}';
    const now = 1_767_000_000_000;
    expect(checkSignature(signBody(deriveToolSecret(KEY), body, now), body, secret, now)).toBe('valid');
    expect(checkSignature(signBody(deriveToolSecret(KEY), '', now), '', secret, now)).toBe('valid');
    expect(checkSignature(undefined, body, secret, now)).toBe('missing_signature');
    expect(checkSignature('t=1,v1=zz', body, secret, now)).toBe('malformed_signature');
    expect(checkSignature(signBody(deriveToolSecret(KEY), body, now - 300_001), body, secret, now)).toBe('stale_timestamp');
    expect(checkSignature(signBody(deriveToolSecret(KEY), `${body} `, now), body, secret, now)).toBe('invalid_signature');
    expect(toolSecret(KEY, 'ab'.repeat(32)).equals(Buffer.from('ab'.repeat(32), 'hex'))).toBe(true);
  });
});
