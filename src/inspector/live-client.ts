import type { LiveMessage } from '../events/inspector-api.js';
import { request } from './api-client.js';

export interface LiveClient {
  close(): void;
}

/**
 * Reads the live channel (a streamed POST answer, one JSON message a line)
 * and opens it again after it ends, waiting a little longer each time.
 */
export function connectLive(handlers: { onMessage(message: LiveMessage): void; onState(state: 'connecting' | 'live' | 'lost'): void }): LiveClient {
  let isClosed = false;
  let controller: AbortController | undefined;
  let retryMs = 500;
  let stopWaiting: (() => void) | undefined;

  async function run(): Promise<void> {
    while (!isClosed) {
      handlers.onState('connecting');
      controller = new AbortController();
      try {
        const response = await request('/api/live', { method: 'POST', signal: controller.signal });
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        handlers.onState('live');
        retryMs = 500;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let newline = buffer.indexOf('\n');
          while (newline >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (line !== '') handlers.onMessage(JSON.parse(line) as LiveMessage);
            newline = buffer.indexOf('\n');
          }
        }
      } catch {
        // The daemon stopped or the network blinked: say so and try again below.
      }
      if (isClosed) return;
      handlers.onState('lost');
      // A reconnect back-off (not a wait for something to happen); close() ends it at once.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryMs);
        stopWaiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      stopWaiting = undefined;
      retryMs = Math.min(retryMs * 2, 5_000);
    }
  }
  void run();
  return {
    close() {
      isClosed = true;
      controller?.abort();
      stopWaiting?.();
    },
  };
}
