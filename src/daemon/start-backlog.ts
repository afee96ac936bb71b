import type { DaemonEvent } from '../events/index.js';
import type { EventHub } from './event-hub.js';

/**
 * The events of the start that happen before startDaemon has resolved (the
 * proxy listens, the tunnel opens and the dev server starts while the
 * control channel and the inspector still start): a listener that subscribes right after
 * startDaemon resolved gets them first, in order, then the live ones, as if
 * it had been there (the Daemon's `events` contract). Kept until `end()`, a
 * macrotask after the resolve; later listeners start from the snapshot.
 */
export interface StartBacklog {
  on(listener: (event: DaemonEvent) => void): () => void;
  end(): void;
}

export function keepStartBacklog(hub: Pick<EventHub, 'on'>): StartBacklog {
  let backlog: DaemonEvent[] | undefined = [];
  const stopKeeping = hub.on((event) => backlog?.push(event));
  return {
    on(listener) {
      for (const event of backlog ?? []) listener(event);
      return hub.on(listener);
    },
    end() {
      backlog = undefined;
      stopKeeping();
    },
  };
}
