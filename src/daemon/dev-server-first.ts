import type { DaemonEvent } from '../events/index.js';
import type { EventHub } from './event-hub.js';

/** The longest the parts nobody waits for (file watcher, control channel, inspector) wait for the dev server's spawn. */
export const DEV_SERVER_FIRST_LIMIT_MS = 1_000;

/**
 * Whether the start's critical path is past the daemon's own work: the dev
 * server was spawned (what follows is its own start, in its own process),
 * or the heal went on without one (syncing), or the tunnel did not open
 * (its retries wait anyway), or something failed.
 */
export function isPastCriticalStart(event: DaemonEvent): boolean {
  switch (event.event) {
    case 'child':
      return event.state === 'running' || event.state === 'exited';
    case 'heal':
      return event.state === 'syncing' || event.state === 'done';
    case 'tunnel':
      return event.state === 'down' || event.state === 'closed';
    case 'local-only':
    case 'error':
      return true;
    default:
      return false;
  }
}

/**
 * Resolves once the tunnel opened and the dev server was spawned with its
 * URL (isPastCriticalStart), at the latest after `limitMs` or on abort: the
 * daemon starts its other parts then, so their module loads and listens do
 * not hold up the tunnel's registration, the env file's write and the spawn
 * on the one main thread (the dev server's start is on the start's critical
 * path; the control channel and the inspector are not).
 */
export function devServerFirst(hub: Pick<EventHub, 'on'>, signal: AbortSignal, limitMs = DEV_SERVER_FIRST_LIMIT_MS): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      unsubscribe();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, limitMs).unref();
    const unsubscribe = hub.on((event) => {
      if (isPastCriticalStart(event)) done();
    });
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}
