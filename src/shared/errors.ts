/**
 * Errors with a stable string code. `UserError` is for what the user can fix
 * (shown with its hint, exit 1 or 2); any other error is a bug and shows a
 * stack under --debug. Only src/cli maps errors to output and exit codes.
 */
import { receivedErrorCode, type ErrorCode } from './error-codes.js';

export { type ErrorCode, receivedErrorCode, isKnownErrorCode } from './error-codes.js';

export class MedianDevError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  /** Extra machine-readable facts (an HTTP status, Median's own code, …). */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MedianDevError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }
}

/** An error the user can fix: bad flag, bad key, unreachable target, … */
export class UserError extends MedianDevError {
  /** Exit code the CLI uses: 2 for usage errors, 1 otherwise. */
  readonly exitCode: 1 | 2;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; cause?: unknown; details?: Record<string, unknown>; exitCode?: 1 | 2 } = {},
  ) {
    super(code, message, options);
    this.name = 'UserError';
    this.exitCode = options.exitCode ?? 1;
  }
}

export function isMedianDevError(error: unknown): error is MedianDevError {
  return error instanceof MedianDevError;
}

/** The code of a coded error (ours or Node's), else undefined. */
export function errorCode(error: unknown): string | undefined {
  if (error && typeof error === 'object' && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** The code of any error as an ErrorCode: ours, or Node's (ECONNREFUSED, …) as it came, else `fallback`. */
export function codeOf(error: unknown, fallback: ErrorCode): ErrorCode {
  if (error instanceof MedianDevError) return error.code;
  const code = errorCode(error);
  return code === undefined ? fallback : receivedErrorCode(code);
}
