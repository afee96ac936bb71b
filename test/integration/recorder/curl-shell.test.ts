import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { deriveToolSecret, verifySignature } from '../../../src/median/index.js';
import { toCurl } from '../../../src/recorder/index.js';
import { KEY, makeRecord } from '../../helpers/make-record.js';

const run = promisify(execFile);
const secret = deriveToolSecret(KEY);

/**
 * Runs the command text in a real `sh`, with `curl` replaced by a function
 * that prints the words it was given: what the shell would hand to curl.
 */
async function wordsTheShellPasses(command: string): Promise<string[]> {
  const script = `curl() { for word in "$@"; do printf '%s\\0' "$word"; done; }\n${command}\n`;
  const { stdout } = await run('sh', ['-c', script], { timeout: 10_000, encoding: 'buffer' });
  return stdout.toString('utf8').split('\0').slice(0, -1);
}

describe('toCurl in a real shell', () => {
  it('hands curl the exact body and a signature that verifies', async () => {
    const body = JSON.stringify({
      tool: 'note',
      toolCallId: 'call_1',
      input: { text: `it's "$HOME" \`id\` $(id) \\ ! * ~ ; | & < > #\nsecond line ünïcödé 😀` },
    });
    const record = makeRecord({
      request: { method: 'POST', path: '/api/median', headers: { 'content-type': 'application/json', 'x-note': "a'b" }, body },
    });
    const now = Date.now();
    const words = await wordsTheShellPasses(toCurl(record, { url: 'http://127.0.0.1:3000/api/median?x=1&y=2', secret, now }));

    expect(words.slice(0, 3)).toEqual(['-X', 'POST', 'http://127.0.0.1:3000/api/median?x=1&y=2']);
    expect(words.at(-2)).toBe('--data-raw');
    expect(words.at(-1)).toBe(body);
    const headers = words.filter((_, i) => words[i - 1] === '-H');
    expect(headers).toContain("x-note: a'b");
    const signature = headers.find((h) => h.startsWith('median-signature: '))?.slice('median-signature: '.length);
    expect(verifySignature(signature, words.at(-1)!, secret, now)).toBe('valid');
  });
});

describe('toCurl with escape sequences in the request', () => {
  /** Like wordsTheShellPasses, and what curl would read on stdin (`--data-binary @-`). */
  async function wordsAndStdin(command: string): Promise<{ words: string[]; stdin: Buffer }> {
    const script = `curl() { for word in "$@"; do printf '%s\\0' "$word"; done; printf '\\001'; cat; }\n${command}\n`;
    const { stdout } = await run('sh', ['-c', script], { timeout: 10_000, encoding: 'buffer' });
    const split = stdout.indexOf(1);
    return { words: stdout.subarray(0, split).toString('utf8').split('\0').slice(0, -1), stdin: stdout.subarray(split + 1) };
  }

  it('prints no raw control character, and the shell still passes the exact bytes', async () => {
    const evil = '\u001b]0;PWNED\u0007\u001b[2J\u001b[31mevil\u009b\r\u202e';
    const body = JSON.stringify({ tool: evil, toolCallId: 'call_x\u001b[8m' }).replace('evil', `evil${evil}`) + '\n\n';
    const record = makeRecord({ request: { method: 'POST', path: '/api/median', headers: { 'x-note': `a${evil}b\\n` }, body } });
    const now = Date.now();
    const command = toCurl(record, { url: 'http://127.0.0.1:3000/api/median', secret, now });
    expect(command.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    const { words, stdin } = await wordsAndStdin(command);
    expect(stdin.toString('utf8')).toBe(body);
    expect(words).toContain('--data-binary');
    const headers = words.filter((_, i) => words[i - 1] === '-H');
    expect(headers).toContain(`x-note: a${evil}b\\n`);
    const signature = headers.find((h) => h.startsWith('median-signature: '))?.slice('median-signature: '.length);
    expect(verifySignature(signature, stdin.toString('utf8'), secret, now)).toBe('valid');
  });
});
