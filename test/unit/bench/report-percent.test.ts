import { describe, expect, it } from 'vitest';
import { pctAgainst } from '../../../bench/percent.js';

describe('pctAgainst (a ratio in BENCHMARKS.md beside its ≥ goal)', () => {
  it('says a miss that whole percent would round up to the goal with one decimal', () => {
    expect(pctAgainst(0.9487, 0.95)).toBe('94.9 %');
    expect(pctAgainst(0.9451, 0.95)).toBe('94.5 %');
  });

  it('keeps whole percent elsewhere: a clear miss, the goal met exactly, or over it', () => {
    expect(pctAgainst(0.9449, 0.95)).toBe('94 %');
    expect(pctAgainst(0.75, 0.95)).toBe('75 %');
    expect(pctAgainst(0.95, 0.95)).toBe('95 %');
    expect(pctAgainst(1.021, 0.95)).toBe('102 %');
  });
});
