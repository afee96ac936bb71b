/**
 * An error the emulated Median API answers with: `{error: {code, message}}`
 * and an HTTP status (plus headers such as Retry-After).
 */
import type { ErrorCode } from '../shared/error-codes.js';

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }

  toJSON(): { error: { code: string; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}
