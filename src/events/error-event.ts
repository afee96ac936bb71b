import { MedianDevError, codeOf } from '../shared/errors.js';
import type { ErrorCode } from '../shared/error-codes.js';
import type { NewDaemonEvent } from './daemon-events.js';

/**
 * Any error as the daemon's `error` event: a coded error keeps its code and
 * hint; anything else gets `fallback` (a bug, or a Node error with its own code).
 */
export function errorEvent(error: unknown, fallback: ErrorCode = 'internal_error'): Extract<NewDaemonEvent, { event: 'error' }> {
  const hint = error instanceof MedianDevError ? error.hint : undefined;
  return { event: 'error', code: codeOf(error, fallback), message: error instanceof Error ? error.message : String(error), ...(hint ? { hint } : {}) };
}
