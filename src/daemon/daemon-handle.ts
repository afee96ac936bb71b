import type { DaemonContext } from './daemon-context.js';
import type { Daemon } from './daemon-options.js';
import type { StartBacklog } from './start-backlog.js';
import type { CallPath, WiredDispatch } from './wire-dispatch.js';

/** The handle startDaemon resolves with; close() goes through the dispatch, like every command. */
export function daemonHandle({ hub, emit, instanceId }: DaemonContext, { proxy }: CallPath, { dispatch, handleCommand, child }: WiredDispatch, backlog: StartBacklog): Daemon {
  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  return {
    events: { on: (listener) => backlog.on(listener) },
    note: (message, level = 'info') => emit({ event: 'log', level, message }),
    snapshot: () => hub.snapshot(),
    attachSnapshot: () => hub.attachSnapshot(),
    proxyUrl: proxy.url,
    instanceId,
    handleCommand,
    closed,
    killNow: () => child.killNow(),
    close() {
      closing ??= dispatch({ type: 'shutdown.requested' }).then(() => {
        emit({ event: 'tunnel', state: 'closed' });
        resolveClosed();
      });
      return closing;
    },
  };
}
