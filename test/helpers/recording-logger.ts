import type { Logger } from '../../src/shared/logger.js';

export interface LoggedLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

/** A Logger that keeps every line, for tests that assert what a part logged. */
export interface RecordingLogger extends Logger {
  lines: LoggedLine[];
  /** The messages logged at `level`, in order. */
  messages(level: LoggedLine['level']): string[];
}

export function createRecordingLogger(): RecordingLogger {
  const lines: LoggedLine[] = [];
  const log = (level: LoggedLine['level']) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, ...(fields ? { fields } : {}) });
  };
  return {
    lines,
    messages: (level) => lines.filter((line) => line.level === level).map((line) => line.message),
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
}
