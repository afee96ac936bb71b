import { describe, expect, it } from 'vitest';
import {
  isProcessAlive,
  isProcessGroupAlive,
  parseProcStat,
  withSystemCalls,
  type SystemCalls,
} from '../../../src/platform/index.js';

function errnoError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

/** A described process table: pid → [state, process group]. */
function fakeSystem(platform: NodeJS.Platform, table: Record<number, readonly [string, number]>, options: { noProc?: boolean } = {}): SystemCalls {
  return withSystemCalls({
    platform,
    kill(pid) {
      const isFound = pid > 0 ? pid in table : Object.values(table).some(([, group]) => group === -pid);
      if (!isFound) throw errnoError('ESRCH');
    },
    listDir(path) {
      if (options.noProc || path !== '/proc') throw errnoError('ENOENT');
      return ['self', 'cpuinfo', ...Object.keys(table)];
    },
    readTextFile(path) {
      const pid = Number(/^\/proc\/(\d+)\/stat$/.exec(path)?.[1]);
      const entry = table[pid];
      if (options.noProc || !entry) throw errnoError('ENOENT');
      return `${pid} (node (dev) server) ${entry[0]} 1 ${entry[1]} ${entry[1]} 0 -1 4194560 100 0 0 0`;
    },
  });
}

describe('parseProcStat', () => {
  it.each([
    ['1234 (node) S 1 1234 1234 0 -1', { pid: 1234, state: 'S', processGroup: 1234 }],
    ['77 (my (odd) name) Z 5 70 70 0', { pid: 77, state: 'Z', processGroup: 70 }],
    ['9 (a b c) R 1 9 9', { pid: 9, state: 'R', processGroup: 9 }],
    ['garbage', null],
    ['12 (x) S', null],
  ])('%s', (text, expected) => {
    expect(parseProcStat(text)).toEqual(expected);
  });
});

describe('isProcessAlive', () => {
  it.each([
    ['linux', 100, true],
    ['linux', 101, false], // a zombie: exited, not yet reaped
    ['linux', 999, false],
    ['darwin', 100, true],
    ['darwin', 101, true], // no /proc on macOS: kill(pid, 0) decides
    ['win32', 100, true],
    ['linux', 0, false],
    ['linux', -5, false],
  ] as const)('%s pid %i → %s', (platform, pid, expected) => {
    const system = fakeSystem(platform, { 100: ['S', 100], 101: ['Z', 100] });
    expect(isProcessAlive(pid, system)).toBe(expected);
  });

  it('EPERM (another user’s process) means alive', () => {
    const system = withSystemCalls({
      platform: 'darwin',
      kill: () => {
        throw errnoError('EPERM');
      },
    });
    expect(isProcessAlive(1, system)).toBe(true);
  });

  it('sees this very process alive, and an unused pid dead', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(2 ** 22 + 1)).toBe(false);
  });
});

describe('isProcessGroupAlive', () => {
  it.each([
    ['a running member', 'linux', { 100: ['S', 100], 101: ['S', 100] }, true],
    ['only zombies left', 'linux', { 100: ['Z', 100], 101: ['Z', 100] }, false],
    ['leader gone, grandchild running', 'linux', { 101: ['S', 100] }, true],
    ['no member at all', 'linux', { 200: ['S', 200] }, false],
    ['macOS trusts kill(-pgid, 0)', 'darwin', { 100: ['Z', 100] }, true],
  ] as const)('%s', (_label, platform, table, expected) => {
    expect(isProcessGroupAlive(100, fakeSystem(platform, table))).toBe(expected);
  });

  it('without /proc, Linux trusts kill(-pgid, 0)', () => {
    expect(isProcessGroupAlive(100, fakeSystem('linux', { 100: ['Z', 100] }, { noProc: true }))).toBe(true);
  });

  it('Windows has no groups: the one process decides', () => {
    expect(isProcessGroupAlive(100, fakeSystem('win32', { 100: ['S', 7] }))).toBe(true);
    expect(isProcessGroupAlive(100, fakeSystem('win32', { 7: ['S', 100] }))).toBe(false);
  });
});
