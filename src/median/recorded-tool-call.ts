import type { CallRecord } from './call-record.js';
import type { ToolCall } from './protocol.js';
import { parseToolCall } from './route-parser.js';

export type RecordedToolCall =
  | { ok: true; value: ToolCall }
  /** `kind`: not a tool call at all; `cut`: the body was cut at the recording limit; `body`: it does not parse as one (`message` says why). */
  | { ok: false; problem: 'kind' | 'cut' | 'body'; message: string };

/** The tool call a record holds, whole, for sending it again (a replay) or keeping it (a saved call). */
export function recordedToolCall(record: CallRecord): RecordedToolCall {
  if (record.kind !== 'tool-call') return { ok: false, problem: 'kind', message: `${record.toolCallId || record.id} is a ${record.kind} request, not a tool call` };
  if (record.request.truncated) return { ok: false, problem: 'cut', message: 'The recorded request body was cut at the recording limit' };
  let json: unknown;
  try {
    json = JSON.parse(record.request.body);
  } catch {
    json = undefined;
  }
  const parsed = parseToolCall(json);
  return parsed.ok ? parsed : { ok: false, problem: 'body', message: `The recorded body is not a valid tool call (${parsed.message})` };
}
