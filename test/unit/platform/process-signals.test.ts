import { describe, expect, it } from 'vitest';
import {
  planTreeSignal,
  signalProcessTree,
  stopModes,
  stopSignals,
  withSystemCalls,
  type SignalTarget,
} from '../../../src/platform/index.js';

function errnoError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

/** A child stand-in that records what it was sent. */
function fakeTarget(pid: number | undefined): SignalTarget & { sent: Array<NodeJS.Signals | undefined> } {
  const sent: Array<NodeJS.Signals | undefined> = [];
  return {
    pid,
    sent,
    kill(signal) {
      sent.push(signal);
      return true;
    },
  };
}

describe('planTreeSignal', () => {
  it.each([
    ['linux', 'graceful', { kind: 'group', groupId: 42, signal: 'SIGTERM' }],
    ['linux', 'force', { kind: 'group', groupId: 42, signal: 'SIGKILL' }],
    ['darwin', 'graceful', { kind: 'group', groupId: 42, signal: 'SIGTERM' }],
    ['darwin', 'force', { kind: 'group', groupId: 42, signal: 'SIGKILL' }],
    ['win32', 'graceful', { kind: 'child', signal: 'SIGTERM' }],
    ['win32', 'force', { kind: 'run', file: 'taskkill', args: ['/pid', '42', '/T', '/F'] }],
  ] as const)('%s %s', (platform, mode, expected) => {
    expect(planTreeSignal(42, mode, platform)).toEqual(expected);
  });
});

describe('stop modes and signals', () => {
  it.each([
    ['linux', ['graceful', 'force'], ['SIGINT', 'SIGTERM', 'SIGHUP']],
    ['darwin', ['graceful', 'force'], ['SIGINT', 'SIGTERM', 'SIGHUP']],
    ['win32', ['force'], ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']],
  ] as const)('%s', (platform, modes, signals) => {
    expect(stopModes(platform)).toEqual(modes);
    expect(stopSignals(platform)).toEqual(signals);
  });
});

describe('signalProcessTree', () => {
  it('POSIX: signals the negative pid (the whole group)', async () => {
    const calls: Array<[number, NodeJS.Signals | 0]> = [];
    const system = withSystemCalls({ platform: 'linux', kill: (pid, signal) => void calls.push([pid, signal]) });
    const target = fakeTarget(42);
    await expect(signalProcessTree(target, 'graceful', system)).resolves.toBe(true);
    await expect(signalProcessTree(target, 'force', system)).resolves.toBe(true);
    expect(calls).toEqual([
      [-42, 'SIGTERM'],
      [-42, 'SIGKILL'],
    ]);
    expect(target.sent).toEqual([]);
  });

  it('POSIX: a group that is gone (ESRCH) is nothing to signal', async () => {
    const system = withSystemCalls({
      platform: 'darwin',
      kill: () => {
        throw errnoError('ESRCH');
      },
    });
    const target = fakeTarget(42);
    await expect(signalProcessTree(target, 'graceful', system)).resolves.toBe(false);
    expect(target.sent).toEqual([]);
  });

  it('POSIX: a group that refuses (EPERM) falls back to the child itself', async () => {
    const system = withSystemCalls({
      platform: 'darwin',
      kill: () => {
        throw errnoError('EPERM');
      },
    });
    const target = fakeTarget(42);
    await expect(signalProcessTree(target, 'force', system)).resolves.toBe(true);
    expect(target.sent).toEqual(['SIGKILL']);
  });

  it('win32: graceful is child.kill(), force is taskkill /T /F', async () => {
    const runs: Array<[string, readonly string[]]> = [];
    const system = withSystemCalls({
      platform: 'win32',
      kill: () => {
        throw new Error('process.kill must not be used for a tree on Windows');
      },
      run: async (file, args) => {
        runs.push([file, args]);
        return 0;
      },
    });
    const target = fakeTarget(42);
    await expect(signalProcessTree(target, 'graceful', system)).resolves.toBe(true);
    await expect(signalProcessTree(target, 'force', system)).resolves.toBe(true);
    expect(target.sent).toEqual(['SIGTERM']);
    expect(runs).toEqual([['taskkill', ['/pid', '42', '/T', '/F']]]);
  });

  it('win32: taskkill failing (tree already gone) reports nothing delivered', async () => {
    const system = withSystemCalls({ platform: 'win32', run: async () => 128 });
    await expect(signalProcessTree(fakeTarget(42), 'force', system)).resolves.toBe(false);
  });

  it('a child without pid (never spawned) is nothing to signal', async () => {
    await expect(signalProcessTree(fakeTarget(undefined), 'force', withSystemCalls({ platform: 'linux' }))).resolves.toBe(
      false,
    );
  });
});
