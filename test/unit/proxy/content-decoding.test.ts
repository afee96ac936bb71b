import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeContent, isBinaryContentType } from '../../../src/proxy/content-decoding.js';

const TEXT = JSON.stringify({ result: { words: 'x'.repeat(5_000) } });
const LIMIT = 1024 * 1024;

describe('decodeContent', () => {
  it.each([
    { encoding: undefined, bytes: Buffer.from(TEXT) },
    { encoding: 'identity', bytes: Buffer.from(TEXT) },
    { encoding: 'gzip', bytes: gzipSync(TEXT) },
    { encoding: 'GZIP', bytes: gzipSync(TEXT) },
    { encoding: 'br', bytes: brotliCompressSync(TEXT) },
    { encoding: 'deflate', bytes: deflateSync(TEXT) },
    { encoding: 'deflate', bytes: deflateRawSync(TEXT) },
  ])('decodes a whole $encoding body and knows its size', async ({ encoding, bytes }) => {
    const decoded = await decodeContent(bytes, encoding, true, LIMIT);
    expect(decoded.bytes.toString()).toBe(TEXT);
    expect(decoded.size).toBe(Buffer.byteLength(TEXT));
  });

  it('decodes what it can of a cut gzip body, size unknown', async () => {
    const whole = gzipSync(TEXT, { level: 0 });
    const decoded = await decodeContent(whole.subarray(0, 1_000), 'gzip', false, LIMIT);
    expect(TEXT.startsWith(decoded.bytes.toString())).toBe(true);
    expect(decoded.bytes.length).toBeGreaterThan(0);
    expect(decoded.size).toBeUndefined();
  });

  it.each([
    { name: 'a body that is not what its label says', bytes: Buffer.from('plain'), encoding: 'gzip' },
    { name: 'an encoding we do not know', bytes: Buffer.from('zzz'), encoding: 'zstd' },
  ])('gives back the bytes as they came for $name', async ({ bytes, encoding }) => {
    expect(await decodeContent(bytes, encoding, true, LIMIT)).toEqual({ bytes, size: bytes.length });
  });

  it.each([
    { encoding: 'gzip', bytes: gzipSync(Buffer.alloc(64 * 1024 * 1024)) },
    { encoding: 'br', bytes: brotliCompressSync(Buffer.alloc(64 * 1024 * 1024)) },
  ])('stops a $encoding bomb at the limit: the first bytes, cut, a lower bound for its size', async ({ encoding, bytes }) => {
    const decoded = await decodeContent(bytes, encoding, true, LIMIT);
    expect(decoded.bytes.length).toBe(LIMIT);
    expect(decoded.isCut).toBe(true);
    expect(decoded.size).toBeGreaterThan(LIMIT);
    expect(decoded.size).toBeLessThan(8 * LIMIT);
  });
});

describe('isBinaryContentType', () => {
  it.each([
    ['image/png', true],
    ['font/woff2', true],
    ['application/octet-stream', true],
    ['application/json; charset=utf-8', false],
    ['text/html', false],
    ['application/javascript', false],
    [undefined, false],
  ])('%s → %s', (type, binary) => {
    expect(isBinaryContentType(type)).toBe(binary);
  });
});
