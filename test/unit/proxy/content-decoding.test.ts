import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeContent, isBinaryContentType } from '../../../src/proxy/content-decoding.js';

const TEXT = JSON.stringify({ result: { words: 'x'.repeat(5_000) } });

describe('decodeContent', () => {
  it.each([
    { encoding: undefined, bytes: Buffer.from(TEXT) },
    { encoding: 'identity', bytes: Buffer.from(TEXT) },
    { encoding: 'gzip', bytes: gzipSync(TEXT) },
    { encoding: 'GZIP', bytes: gzipSync(TEXT) },
    { encoding: 'br', bytes: brotliCompressSync(TEXT) },
    { encoding: 'deflate', bytes: deflateSync(TEXT) },
    { encoding: 'deflate', bytes: deflateRawSync(TEXT) },
  ])('decodes a whole $encoding body and knows its size', ({ encoding, bytes }) => {
    const decoded = decodeContent(bytes, encoding, true);
    expect(decoded.bytes.toString()).toBe(TEXT);
    expect(decoded.size).toBe(Buffer.byteLength(TEXT));
  });

  it('decodes what it can of a cut gzip body, size unknown', () => {
    const whole = gzipSync(TEXT, { level: 0 });
    const decoded = decodeContent(whole.subarray(0, 1_000), 'gzip', false);
    expect(TEXT.startsWith(decoded.bytes.toString())).toBe(true);
    expect(decoded.bytes.length).toBeGreaterThan(0);
    expect(decoded.size).toBeUndefined();
  });

  it.each([
    { name: 'a body that is not what its label says', bytes: Buffer.from('plain'), encoding: 'gzip' },
    { name: 'an encoding we do not know', bytes: Buffer.from('zzz'), encoding: 'zstd' },
  ])('gives back the bytes as they came for $name', ({ bytes, encoding }) => {
    expect(decodeContent(bytes, encoding, true)).toEqual({ bytes, size: bytes.length });
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
