import { describe, expect, it } from 'vitest';
import { deriveToolSecret, verifySignature } from '../../../src/median/index.js';
import { shellQuote, toCurl } from '../../../src/recorder/index.js';
import { KEY, makeRecord } from '../../helpers/make-record.js';

const secret = deriveToolSecret(KEY);
const NOW = new Date(2025, 5, 15, 9, 58, 7).getTime();

/** The words of a POSIX command line that uses only single quotes, `\'` and `\`-newline. */
function shellWords(command: string): string[] {
  const text = command
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('\n')
    .replaceAll('\\\n', '');
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) throw new Error('unterminated quote');
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '\\') {
      word = (word ?? '') + (text[i + 1] ?? '');
      i += 1;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (/[A-Za-z0-9_\-./:]/.test(c)) {
      word = (word ?? '') + c;
    } else {
      throw new Error(`unquoted shell character ${c}`);
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The headers and body a curl command line sends. */
function curlRequest(words: string[]): { method: string; url: string; headers: Map<string, string[]>; body: string } {
  const headers = new Map<string, string[]>();
  let method = 'GET';
  let url = '';
  let body = '';
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i]!;
    if (word === '-X') method = words[(i += 1)]!;
    else if (word === '-H') {
      const header = words[(i += 1)]!;
      const colon = header.indexOf(':');
      const name = header.slice(0, colon).toLowerCase();
      headers.set(name, [...(headers.get(name) ?? []), header.slice(colon + 1).trim()]);
    } else if (word === '--data-raw') body = words[(i += 1)]!;
    else url = word;
  }
  return { method, url, headers, body };
}

describe('shellQuote', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it'\\''s'"],
    ['$HOME `x` "q" \\ !', "'$HOME `x` \"q\" \\ !'"],
    ['', "''"],
    ['a\nb', "'a\nb'"],
  ])('%j → %s', (text, quoted) => {
    expect(shellQuote(text)).toBe(quoted);
    expect(shellWords(`x ${shellQuote(text)}`)).toEqual(['x', text]);
  });
});

describe('toCurl', () => {
  const body = `{"tool":"orderStatus","toolCallId":"call_1","input":{"note":"it's $5 \`now\`"}}`;
  const record = makeRecord({
    request: {
      method: 'POST',
      path: '/api/median',
      headers: {
        host: 'demo.loca.lt',
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        authorization: 'Bearer median_key_****abcd',
        connection: 'keep-alive',
        'transfer-encoding': 'chunked',
        'median-signature': 't=1,v1=' + '0'.repeat(64),
        'x-forwarded-for': ['1.2.3.4', '5.6.7.8'],
      },
      body,
    },
  });
  const text = toCurl(record, { url: 'http://127.0.0.1:3000/api/median', secret, now: NOW });

  it('starts with a comment saying until when it is valid', () => {
    expect(text.split('\n')[0]).toBe('# Signed at 09:58:07 with a fresh timestamp: valid for five minutes (until 10:03:07).');
  });

  it('is re-signed with a fresh timestamp that verifies against the body it sends', () => {
    const sent = curlRequest(shellWords(text));
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('http://127.0.0.1:3000/api/median');
    expect(sent.body).toBe(body);
    const signature = sent.headers.get('median-signature');
    expect(signature).toHaveLength(1);
    expect(signature![0]).toMatch(new RegExp(`^t=${NOW},v1=`));
    expect(verifySignature(signature![0], sent.body, secret, NOW + 299_000)).toBe('valid');
    expect(verifySignature(signature![0], sent.body, secret, NOW + 301_000)).toBe('stale_timestamp');
  });

  it('leaves out hop-by-hop, content-length, host and authorization headers', () => {
    const sent = curlRequest(shellWords(text));
    expect([...sent.headers.keys()].sort()).toEqual(['content-type', 'median-signature', 'x-forwarded-for']);
    expect(sent.headers.get('x-forwarded-for')).toEqual(['1.2.3.4', '5.6.7.8']);
  });

  it('signs an empty body for a GET and sends no data', () => {
    const get = makeRecord({ request: { method: 'GET', path: '/api/median', headers: {}, body: '' } });
    const sent = curlRequest(shellWords(toCurl(get, { url: 'http://x.test/api/median', secret, now: NOW })));
    expect(sent).toMatchObject({ method: 'GET', body: '' });
    expect(verifySignature(sent.headers.get('median-signature')?.[0], '', secret, NOW)).toBe('valid');
  });

  it('says so when the recorded body was cut', () => {
    const cut = makeRecord({ request: { method: 'POST', path: '/', headers: {}, body: '{"a":', truncated: true } });
    expect(toCurl(cut, { url: 'http://x.test/', secret, now: NOW }).split('\n')[1]).toMatch(/^# The recorded body was cut/);
  });
});
