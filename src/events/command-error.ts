import { isMedianDevError } from '../shared/errors.js';
import type { ErrorCode } from '../shared/error-codes.js';

/**
 * Why a control command failed: the body of a failed `result` frame on the
 * control channel, and what the TUI shows for a command it sent.
 */
export interface CommandError {
  code: ErrorCode;
  message: string;
  hint?: string;
}

/** A coded error as a CommandError; anything else as `fallback` makes it. */
export function commandErrorOf(error: unknown, fallback: (error: unknown) => CommandError): CommandError {
  if (!isMedianDevError(error)) return fallback(error);
  const body: CommandError = { code: error.code, message: error.message };
  if (error.hint !== undefined) body.hint = error.hint;
  return body;
}
