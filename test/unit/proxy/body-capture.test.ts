import { describe, expect, it } from 'vitest';
import { BodyCapture } from '../../../src/proxy/body-capture.js';

describe('BodyCapture', () => {
  it.each([
    { name: 'under the limit', limit: 10, chunks: ['abc', 'def'], kept: 'abcdef', size: 6, truncated: false },
    { name: 'exactly at the limit', limit: 6, chunks: ['abc', 'def'], kept: 'abcdef', size: 6, truncated: false },
    { name: 'cut inside a chunk', limit: 4, chunks: ['abc', 'def'], kept: 'abcd', size: 6, truncated: true },
    { name: 'chunks past the limit only counted', limit: 3, chunks: ['abc', 'def', 'ghi'], kept: 'abc', size: 9, truncated: true },
    { name: 'a zero limit keeps nothing', limit: 0, chunks: ['abc'], kept: '', size: 3, truncated: true },
    { name: 'no body', limit: 10, chunks: [], kept: '', size: 0, truncated: false },
  ])('$name', ({ limit, chunks, kept, size, truncated }) => {
    const capture = new BodyCapture(limit);
    for (const chunk of chunks) capture.add(Buffer.from(chunk));
    expect(capture.bytes().toString()).toBe(kept);
    expect(capture.size).toBe(size);
    expect(capture.truncated).toBe(truncated);
  });

  it('keeps a body of one chunk as that chunk, and joins several into one buffer once', () => {
    const chunk = Buffer.from('abc');
    const single = new BodyCapture(10);
    single.add(chunk);
    expect(single.bytes()).toBe(chunk);

    const several = new BodyCapture(10);
    several.add(Buffer.from('ab'));
    several.add(Buffer.from('c'));
    const joined = several.bytes();
    expect(joined.toString()).toBe('abc');
    expect(several.bytes()).toBe(joined);
  });
});
