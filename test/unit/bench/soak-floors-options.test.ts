import { describe, expect, it } from 'vitest';
import { parseSoakFloorsOptions } from '../../../bench/soak/soak-floors-options.js';

describe("soak-floors' flags", () => {
  it('runs the daemon and both floors at the soak of the goal by default, never writing', () => {
    const options = parseSoakFloorsOptions([]);
    expect(options.variants.map((v) => v.kind)).toEqual(['daemon', 'record', 'stock']);
    expect(options.soak).toMatchObject({ calls: 30_000, rate: 250, dropEvery: 3_000, idleSeconds: 30, write: false });
    expect(options.rounds).toBe(1);
  });

  it('takes node options per variant after a +', () => {
    const options = parseSoakFloorsOptions(['--variants', 'daemon,daemon+--heap-growing-percent=20+--foo', '--rounds', '2', '--calls', '1000']);
    expect(options.variants).toEqual([
      { name: 'daemon', kind: 'daemon', nodeArgs: [] },
      { name: 'daemon+--heap-growing-percent=20+--foo', kind: 'daemon', nodeArgs: ['--heap-growing-percent=20', '--foo'] },
    ]);
    expect(options.soak).toMatchObject({ calls: 1_000, dropEvery: 100 });
  });

  it.each([[['--variants', 'proxy']], [['--variants', 'daemon+heap']], [['--rounds', '0']], [['--write']], [['--bogus']]])('refuses %j', (argv) => {
    expect(() => parseSoakFloorsOptions(argv)).toThrow();
  });
});
