import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/cli-io.js';
import { holdSignalsDuringStart } from '../../../src/cli/foreground-daemon.js';

/**
 * The process side of io.onSignal as main.ts gives it: a listener on the
 * process per subscription. Node stops watching a signal when its last
 * listener goes, and drops one it was delivering then, so the hand-over
 * from the start to the foreground must keep the one subscription.
 */
function signalIo() {
  const listeners = new Set<(signal: 'SIGINT' | 'SIGTERM') => void>();
  let subscribed = 0;
  const io = {
    onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void) {
      listeners.add(handler);
      subscribed += 1;
      return () => listeners.delete(handler);
    },
  } as unknown as CliIo;
  return { io, raise: () => [...listeners].forEach((l) => l('SIGINT')), listening: () => listeners.size, subscriptions: () => subscribed };
}

describe('holdSignalsDuringStart', () => {
  it('hands the signals of the start and every later one to the foreground over one subscription', () => {
    const { io, raise, listening, subscriptions } = signalIo();
    const held = holdSignalsDuringStart(io);
    raise();
    const seen: number[] = [];
    const unsubscribe = held.handOver(() => seen.push(listening()));
    expect(seen).toEqual([1]); // the one of the start, replayed
    raise();
    expect(seen).toEqual([1, 1]);
    // Never a moment without a listener: the start's subscription is the foreground's.
    expect(subscriptions()).toBe(1);
    unsubscribe();
    expect(listening()).toBe(0);
  });

  it('lets go of the signals when the start failed', () => {
    const { io, listening } = signalIo();
    holdSignalsDuringStart(io).release();
    expect(listening()).toBe(0);
  });
});
