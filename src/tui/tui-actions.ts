import type { CallRecord } from '../median/call-record.js';
import type { CommandError } from '../events/command-error.js';
import type { ControlCommand, DaemonEvent, DaemonSnapshot } from '../events/daemon-events.js';
import type { Flash, TuiState } from './tui-state.js';

/**
 * A key as the view model knows it: a printable character (`r`, `R`, `/`,
 * `?`, ` `…) or a name: `up`, `down`, `pageup`, `pagedown`, `home`, `end`,
 * `enter`, `escape`, `backspace`, `C-c`, `C-u`.
 */
export type TuiKey = string;

export type { CommandError } from '../events/index.js';

export type TuiAction =
  | { type: 'snapshot'; snapshot: DaemonSnapshot }
  | { type: 'event'; event: DaemonEvent }
  | { type: 'key'; key: TuiKey }
  | { type: 'resize'; width: number; height: number }
  /** The answer to a `send` effect. */
  | { type: 'command-result'; command: ControlCommand; ok: true; result?: unknown }
  | { type: 'command-result'; command: ControlCommand; ok: false; error: CommandError }
  /** The editor closed after an `edit-input` effect: its text, or undefined when cancelled. */
  | { type: 'input-edited'; record: CallRecord; text: string | undefined }
  /** Shows a text box (the curl command once copied). */
  | { type: 'show-text'; title: string; text: string }
  | { type: 'flash'; text: string; level?: Flash['level'] };

export type TuiEffect =
  | { type: 'send'; command: ControlCommand }
  | { type: 'quit' }
  /** Put text on the clipboard (OSC 52). */
  | { type: 'copy'; text: string }
  /** Open the record's input in the editor, then dispatch `input-edited`. */
  | { type: 'edit-input'; record: CallRecord }
  | { type: 'export-har' }
  /** Save the record as a test file (`median-dev calls save`). */
  | { type: 'save-call'; record: CallRecord }
  /** `text`: the curl command with the recorded signature (a caller may re-sign instead). */
  | { type: 'copy-curl'; record: CallRecord; text: string };

export interface TuiResult {
  state: TuiState;
  effects: TuiEffect[];
}
