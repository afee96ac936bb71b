import { receivedErrorCode } from '../shared/error-codes.js';
import { commandErrorOf } from '../events/command-error.js';
import type { ControlCommand, DaemonEvent, DaemonSnapshot } from '../events/daemon-events.js';
import { startTui, type Tui, type TuiOptions } from './start-tui.js';
import type { CommandError, TuiEffect } from './tui-actions.js';

/**
 * What the TUI needs of a control-channel client (src/control's client fits;
 * parts do not import each other, so the shape is stated here).
 */
export interface TuiControlClient {
  /** The snapshot received on connecting. */
  readonly snapshot: DaemonSnapshot;
  /** Live events; returns the unsubscribe function. */
  onEvent(listener: (event: DaemonEvent) => void): () => void;
  /** Sends a command; resolves with its result, rejects with a coded error. */
  send(command: ControlCommand): Promise<unknown>;
  /** Optional: a fresh snapshot (after a reconnect). */
  onSnapshot?(listener: (snapshot: DaemonSnapshot) => void): () => void;
  /** Optional: the connection ended. */
  onClose?(listener: (reason?: string) => void): () => void;
  close(): void | Promise<void>;
}

export type AttachTuiOptions = Omit<TuiOptions, 'onEffect'> & {
  /** Effects other than `send` (`quit`, `export-har`). */
  onEffect?(effect: Exclude<TuiEffect, { type: 'send' }>): void | Promise<void>;
};

export interface AttachedTui {
  tui: Tui;
  /** Idempotent: stops listening, closes the TUI (terminal restored), closes the client. */
  close(): Promise<void>;
}

/** A failed command as the TUI shows it: a coded error keeps its code (a Node error's too). */
export function tuiCommandError(error: unknown): CommandError {
  return commandErrorOf(error, (other) => {
    if (other && typeof other === 'object' && typeof (other as { code?: unknown }).code === 'string') {
      const coded = other as { code: string; message?: unknown; hint?: unknown };
      const body: CommandError = { code: receivedErrorCode(coded.code), message: String(coded.message ?? coded.code) };
      if (typeof coded.hint === 'string') body.hint = coded.hint;
      return body;
    }
    return { code: 'command_failed', message: other instanceof Error ? other.message : String(other) };
  });
}

/**
 * Feeds a control client's snapshot and events into a TUI and turns its
 * `send` effects into `client.send`, showing each result in the footer.
 * Used by `median-dev watch` and by `start` on a TTY.
 */
export function attachTuiToControl(client: TuiControlClient, options: AttachTuiOptions): AttachedTui {
  let isClosed = false;
  const tui: Tui = startTui({
    ...options,
    onEffect: async (effect) => {
      if (effect.type !== 'send') {
        await options.onEffect?.(effect);
        return;
      }
      const { command } = effect;
      try {
        const result = await client.send(command);
        tui.dispatch({ type: 'command-result', command, ok: true, result });
      } catch (error) {
        tui.dispatch({ type: 'command-result', command, ok: false, error: tuiCommandError(error) });
      }
    },
  });
  tui.dispatch({ type: 'snapshot', snapshot: client.snapshot });
  const unsubscribers = [client.onEvent((event) => tui.dispatch({ type: 'event', event }))];
  if (client.onSnapshot) unsubscribers.push(client.onSnapshot((snapshot) => tui.dispatch({ type: 'snapshot', snapshot })));
  if (client.onClose) {
    unsubscribers.push(
      client.onClose((reason) =>
        tui.dispatch({ type: 'flash', level: 'error', text: `Lost the connection to the daemon${reason ? ` (${reason})` : ''}. q quits.` }),
      ),
    );
  }

  return {
    tui,
    async close() {
      if (isClosed) return;
      isClosed = true;
      for (const unsubscribe of unsubscribers) unsubscribe();
      tui.close();
      await client.close();
    },
  };
}
