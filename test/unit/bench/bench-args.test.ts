import { describe, expect, it } from 'vitest';
import { checkBenchArgs } from '../../../bench/bench-args.js';

const FLAGS = { usage: 'node dist/bench/x.js [--quick] [--rounds N]', switches: ['--quick'], values: ['--rounds'] };

describe('a bench checks its flags before it runs', () => {
  it('runs with no flags or only its own', () => {
    expect(checkBenchArgs([], FLAGS)).toEqual({ kind: 'run' });
    expect(checkBenchArgs(['--quick', '--rounds', '3'], FLAGS)).toEqual({ kind: 'run' });
  });

  it('stops for --help or -h, wherever it is', () => {
    expect(checkBenchArgs(['--help'], FLAGS).kind).toBe('help');
    expect(checkBenchArgs(['--quick', '-h'], FLAGS).kind).toBe('help');
  });

  it('stops on a flag it does not know, or a value flag without its value', () => {
    expect(checkBenchArgs(['--no-wirte'], FLAGS).kind).toBe('bad');
    expect(checkBenchArgs(['--rounds'], FLAGS).kind).toBe('bad');
    expect(checkBenchArgs(['--rounds', '--quick'], FLAGS).kind).toBe('bad');
    expect(checkBenchArgs(['3'], FLAGS).kind).toBe('bad');
  });
});
