import { describe, expect, it } from 'vitest';
import { cacheInFile, fileOfCache } from '../../../src/cli/code-cache.js';

// A code cache file holds the cache twice (src/cli/code-cache.ts): V8 release builds do not check a cache's
// bytes, so a file is used only when its copies agree. test/e2e/cli/code-cache.test.ts runs the bin on them.
describe('a code cache file', () => {
  const cache = Buffer.from(Array.from({ length: 1_000 }, (_, i) => (i * 7) % 256));

  it('gives back the cache it was made of', () => {
    expect(cacheInFile(fileOfCache(cache))).toEqual(cache);
  });

  it.each([
    ['empty', () => Buffer.alloc(0)],
    ['only its header', () => fileOfCache(Buffer.alloc(0))],
    ['a byte flipped in one copy', () => flipped(fileOfCache(cache), 100)],
    ['a byte flipped in the other', () => flipped(fileOfCache(cache), fileOfCache(cache).length - 5)],
    ['cut short by a byte', () => fileOfCache(cache).subarray(0, -1)],
    ['cut to one copy', () => fileOfCache(cache).subarray(0, -cache.length)],
    ['another header (an older format, or V8’s own cache written raw)', () => Buffer.concat([Buffer.from('median-dev code cache 0\n'), cache, cache])],
    ['no header', () => Buffer.concat([cache, cache])],
  ])('is not used when it is %s', (_, file) => {
    expect(cacheInFile(file())).toBeUndefined();
  });
});

function flipped(file: Buffer, at: number): Buffer {
  const copy = Buffer.from(file);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}
