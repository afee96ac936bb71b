import { describe, expect, it } from 'vitest';
import { afterBytes } from '../../../src/recorder/write-all.js';

const text = (buffers: readonly Buffer[]): string[] => buffers.map((b) => b.toString());

describe('afterBytes (what a partial writev left to write)', () => {
  it.each([
    { written: 0, left: ['abc', 'de', 'f'] },
    { written: 2, left: ['c', 'de', 'f'] },
    { written: 3, left: ['de', 'f'] },
    { written: 4, left: ['e', 'f'] },
    { written: 5, left: ['f'] },
    { written: 6, left: [] },
  ])('$written bytes written', ({ written, left }) => {
    const buffers = ['abc', 'de', 'f'].map((s) => Buffer.from(s));
    expect(text(afterBytes(buffers, written))).toEqual(left);
    // The buffers handed in stay as they were.
    expect(text(buffers)).toEqual(['abc', 'de', 'f']);
  });
});
