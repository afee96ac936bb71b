import type { EventEmitter } from 'node:events';

/**
 * Catches what a listener throws while `emitter` emits one of `events`, and
 * hands it to `onError` instead of the emitter's caller. For streams a
 * library listens on where no caller can catch: a TTY's `data` comes from
 * libuv and its `resize` from SIGWINCH, so an error thrown by a listener
 * there is uncaught. Returns what stops guarding (idempotent); the emitter's
 * own `emit` is put back when nothing replaced it since.
 */
export function guardEmits(emitter: EventEmitter, events: readonly string[], onError: (error: unknown) => void): () => void {
  const emit = emitter.emit;
  let isGuarding = true;
  const guarded = function guardedEmit(this: EventEmitter, event: string | symbol, ...args: unknown[]): boolean {
    if (!isGuarding || typeof event !== 'string' || !events.includes(event)) return emit.call(this, event, ...args);
    try {
      return emit.call(this, event, ...args);
    } catch (error) {
      onError(error);
      return true;
    }
  };
  emitter.emit = guarded as EventEmitter['emit'];
  return () => {
    isGuarding = false;
    if (emitter.emit === guarded) emitter.emit = emit;
  };
}
