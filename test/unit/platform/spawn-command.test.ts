import { describe, expect, it } from 'vitest';
import { describeCommand, spawnCommandSpec } from '../../../src/platform/index.js';

describe('spawnCommandSpec', () => {
  it.each([
    [
      'linux: no shell, own process group',
      'linux' as const,
      ['npm', 'run', 'dev'],
      { file: 'npm', args: ['run', 'dev'], shell: false, detached: true, windowsHide: true },
    ],
    [
      'darwin: argv passed untouched (no shell to misread it)',
      'darwin' as const,
      ['node', '-e', 'console.log("a & b")'],
      { file: 'node', args: ['-e', 'console.log("a & b")'], shell: false, detached: true, windowsHide: true },
    ],
    [
      'win32: one quoted line through cmd.exe, no detached console',
      'win32' as const,
      ['npm', 'run', 'dev'],
      { file: 'npm run dev', args: [], shell: true, detached: false, windowsHide: true },
    ],
  ])('%s', (_label, platform, command, expected) => {
    expect(spawnCommandSpec(command, platform)).toEqual(expected);
  });

  it.each([[[]], [['']]])('refuses an empty command %j', (command) => {
    expect(() => spawnCommandSpec(command, 'linux')).toThrow(TypeError);
  });
});

describe('describeCommand', () => {
  it.each([
    [['npm', 'run', 'dev'], 'npm run dev'],
    [['node', '-e', 'console.log(1)'], 'node -e "console.log(1)"'],
    [['next', 'dev', '--port=3000'], 'next dev --port=3000'],
  ])('%j → %s', (command, expected) => {
    expect(describeCommand(command)).toBe(expected);
  });
});
