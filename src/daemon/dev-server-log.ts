import { appendFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { childExitText, type DaemonEvent } from '../events/index.js';
import type { Logger } from '../shared/logger.js';

export const DEV_SERVER_LOG_NAME = 'dev-server.log';
/** Past this size the log moves to `dev-server.log.1` (replacing the older one) and starts again. */
const DEFAULT_MAX_BYTES = 1_000_000;

export function devServerLogPath(dataDir: string): string {
  return join(dataDir, DEV_SERVER_LOG_NAME);
}

export interface DevServerLog {
  readonly path: string;
  /** A daemon event: the dev server's output lines (masked already) and its starts and exits go in. */
  take(event: DaemonEvent): void;
  /** Waits for what was handed in to be written. Idempotent. */
  close(): Promise<void>;
}

function lineOf(event: DaemonEvent): string | undefined {
  if (event.event === 'output') return `${event.at} ${event.stream === 'stderr' ? 'err' : 'out'} ${event.line}`;
  if (event.event !== 'child') return undefined;
  if (event.state === 'running') return `${event.at} --- dev server running (pid ${event.pid ?? '?'}): ${event.command ?? ''}`;
  if (event.state === 'exited') return `${event.at} --- dev server exited (${childExitText(event)})`;
  if (event.state === 'stopped') return `${event.at} --- dev server stopped by median-dev`;
  return undefined;
}

/**
 * The dev server's output in the data dir (0600), so a crash's message is
 * somewhere even when the TUI was not looking: masked like every event (the
 * event masker ran before), rotated at `maxBytes`.
 */
export function createDevServerLog(options: { dataDir: string; logger: Logger; maxBytes?: number }): DevServerLog {
  const path = devServerLogPath(options.dataDir);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let size: number | undefined;
  let pending: string[] = [];
  let writing: Promise<void> = Promise.resolve();
  let isFailing = false;

  async function flush(): Promise<void> {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    size ??= await stat(path).then((s) => s.size, () => 0);
    if (size > 0 && size + text.length > maxBytes) {
      await rename(path, `${path}.1`);
      size = 0;
    }
    await appendFile(path, text, { mode: 0o600 });
    size += Buffer.byteLength(text);
  }

  return {
    path,
    take(event) {
      const line = lineOf(event);
      if (line === undefined || isFailing) return;
      pending.push(`${line}\n`);
      writing = writing.then(flush).catch((error: unknown) => {
        // The dev server keeps running and the TUI still shows its output: say it once, in the daemon's debug log.
        isFailing = true;
        options.logger.warn(`The dev server log ${path} cannot be written: ${String(error)}`);
      });
    },
    close: () => writing,
  };
}
