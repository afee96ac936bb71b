import { safeJson } from '../shared/output-sanitiser.js';
import { receivedErrorCode } from '../shared/error-codes.js';
import { commandErrorOf, type CommandError } from '../events/command-error.js';
import type { ControlCommand, DaemonEvent, DaemonSnapshot } from '../events/daemon-events.js';

/**
 * The control channel's frames (JSON text, one object a frame):
 *   server → client: `{type:'snapshot', snapshot}` first, then `{type:'event', event}`…
 *   client → server: `{type:'command', id, command}`
 *   server → client: `{type:'result', id, ok:true, result}` | `{type:'result', id, ok:false, error}`
 * A result for a frame that could not be read carries the frame's id when it
 * had one, else `id: null`.
 */

/** Largest frame a client may send (the server closes the connection beyond it). */
export const CONTROL_MAX_CLIENT_FRAME_BYTES = 1024 * 1024;
/** Largest frame the server may send (a snapshot holds recorded calls). */
export const CONTROL_MAX_SERVER_FRAME_BYTES = 64 * 1024 * 1024;
export const CONTROL_HEARTBEAT_INTERVAL_MS = 15_000;

export type CommandId = string | number;

/** The error body of a failed result frame. */
export type ControlErrorBody = CommandError;

export type ServerFrame =
  | { type: 'snapshot'; snapshot: DaemonSnapshot }
  | { type: 'event'; event: DaemonEvent }
  | { type: 'result'; id: CommandId | null; ok: true; result: unknown }
  | { type: 'result'; id: CommandId | null; ok: false; error: ControlErrorBody };

export interface CommandFrame {
  type: 'command';
  id: CommandId;
  command: ControlCommand;
}

export type ParsedCommandFrame =
  | { ok: true; frame: CommandFrame }
  | { ok: false; id: CommandId | null; error: ControlErrorBody };

/** Every command name, checked against the ControlCommand union by the compiler. */
const COMMAND_NAMES: Record<ControlCommand['command'], true> = {
  replay: true,
  sync: true,
  'restart-child': true,
  diagnostics: true,
  'simulate-hostname-change': true,
  clear: true,
  'inspector-link': true,
  'emulator-decision': true,
};

/** Reads a client frame; never throws. */
export function parseCommandFrame(text: string): ParsedCommandFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return badFrame(null, 'The frame is not JSON.');
  }
  if (!isObject(value)) return badFrame(null, 'A frame must be a JSON object.');
  const id = isCommandId(value.id) ? value.id : null;
  if (value.type !== 'command') {
    return badFrame(id, `Unknown frame type ${JSON.stringify(value.type) ?? 'undefined'}; clients send only "command" frames.`);
  }
  if (id === null) return badFrame(null, 'A command frame needs an `id` (a non-empty string or a finite number).');
  const command = value.command;
  if (!isObject(command) || typeof command.command !== 'string' || !Object.hasOwn(COMMAND_NAMES, command.command)) {
    const name = isObject(command) ? command.command : undefined;
    return {
      ok: false,
      id,
      error: {
        code: 'unknown_command',
        message: `Unknown command ${JSON.stringify(name) ?? 'undefined'}. Known: ${Object.keys(COMMAND_NAMES).join(', ')}.`,
      },
    };
  }
  const problem = commandProblem(command);
  if (problem) return { ok: false, id, error: { code: 'invalid_command', message: problem } };
  return { ok: true, frame: { type: 'command', id, command: command as unknown as ControlCommand } };
}

function commandProblem(command: Record<string, unknown>): string | undefined {
  if (command.command === 'emulator-decision') return decisionProblem(command);
  if (command.command !== 'replay') return undefined;
  if (typeof command.toolCallId !== 'string' || command.toolCallId === '') {
    return 'replay needs a `toolCallId` string.';
  }
  for (const flag of ['newId', 'confirmed', 'allowUnsignedOriginal'] as const) {
    if (command[flag] !== undefined && typeof command[flag] !== 'boolean') return `replay's \`${flag}\` must be a boolean.`;
  }
  if (command.atOffsetMs !== undefined && !Number.isFinite(command.atOffsetMs)) {
    return "replay's `atOffsetMs` must be a finite number.";
  }
  return undefined;
}

function decisionProblem(command: Record<string, unknown>): string | undefined {
  if (typeof command.id !== 'string' || command.id === '') return 'emulator-decision needs the approval request\'s `id` (apr_…).';
  if (command.decision !== 'approve' && command.decision !== 'deny') return 'emulator-decision\'s `decision` is "approve" or "deny".';
  if (command.as !== undefined && (typeof command.as !== 'string' || command.as === '')) return 'emulator-decision\'s `as` is a name.';
  return undefined;
}

/** Reads a server frame on the client side; undefined when it is not one. */
export function parseServerFrame(text: string): ServerFrame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  switch (value.type) {
    case 'snapshot':
      return isObject(value.snapshot) ? (value as unknown as ServerFrame) : undefined;
    case 'event':
      return isObject(value.event) && typeof value.event.event === 'string' ? (value as unknown as ServerFrame) : undefined;
    case 'result': {
      if (!(isCommandId(value.id) || value.id === null)) return undefined;
      if (value.ok === true) return { type: 'result', id: value.id, ok: true, result: value.result };
      if (value.ok === false && isObject(value.error) && typeof value.error.code === 'string') {
        const error: ControlErrorBody = { code: receivedErrorCode(value.error.code), message: String(value.error.message ?? '') };
        if (typeof value.error.hint === 'string') error.hint = value.error.hint;
        return { type: 'result', id: value.id, ok: false, error };
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The error body a failed command answers with. */
export function errorBodyOf(error: unknown): ControlErrorBody {
  return commandErrorOf(error, (other) => {
    const message = other instanceof Error ? other.message : String(other);
    return { code: 'internal_error', message: `The daemon failed to run the command: ${message}` };
  });
}

/** JSON text of a result frame; an answer that cannot be serialised becomes an error result. */
export function resultFrameText(id: CommandId | null, outcome: { ok: true; result: unknown } | { ok: false; error: ControlErrorBody }): string {
  if (!outcome.ok) return safeJson({ type: 'result', id, ok: false, error: outcome.error });
  try {
    return safeJson({ type: 'result', id, ok: true, result: outcome.result ?? null });
  } catch (error) {
    return safeJson({
      type: 'result',
      id,
      ok: false,
      error: { code: 'internal_error', message: `The command's result could not be sent: ${String(error)}` },
    });
  }
}

function badFrame(id: CommandId | null, message: string): ParsedCommandFrame {
  return { ok: false, id, error: { code: 'bad_frame', message } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCommandId(value: unknown): value is CommandId {
  return (typeof value === 'string' && value !== '' && value.length <= 200) || (typeof value === 'number' && Number.isFinite(value));
}
