import { judgeAnswer } from '../median/verdict.js';
import { parseToolCall } from '../median/route-parser.js';
import type { CallRecord } from '../median/call-record.js';
import { UserError } from '../shared/errors.js';

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function headersOf(list: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    if (isObject(item) && typeof item.name === 'string' && typeof item.value === 'string') out[item.name.toLowerCase()] = item.value;
  }
  return out;
}

/** The tool calls of a HAR 1.2 log (ours from `export --har`, a browser's, Polly.js's), and how many entries were something else. */
export interface HarToolCalls {
  records: CallRecord[];
  skipped: number;
}

/**
 * Reads the tool calls out of a HAR document as records, for saving: a POST
 * whose body is a tool call. Its answer is judged afresh (a HAR from another
 * tool has no verdict). Entries that are not tool calls are counted, not read.
 */
export function toolCallsFromHar(json: unknown, source: string): HarToolCalls {
  const entries = isObject(json) && isObject(json.log) && Array.isArray(json.log.entries) ? json.log.entries : undefined;
  if (!entries) {
    throw new UserError('invalid_har', `${source} is not a HAR file: it has no log.entries.`, {
      hint: 'Pass a file written by `median-dev export --har`, a browser\'s "Save all as HAR", or Polly.js.',
    });
  }
  const records: CallRecord[] = [];
  let skipped = 0;
  entries.forEach((entry: unknown, i: number) => {
    const request = isObject(entry) && isObject(entry.request) ? entry.request : undefined;
    const text = isObject(request?.postData) && typeof request.postData.text === 'string' ? request.postData.text : undefined;
    let parsed: ReturnType<typeof parseToolCall> | undefined;
    try {
      parsed = text === undefined ? undefined : parseToolCall(JSON.parse(text));
    } catch {
      parsed = undefined; // not JSON: not a tool call
    }
    if (!isObject(entry) || !request || request.method !== 'POST' || !parsed?.ok) {
      skipped += 1;
      return;
    }
    const response = isObject(entry.response) ? entry.response : {};
    const status = typeof response.status === 'number' && response.status > 0 ? response.status : null;
    const content = isObject(response.content) ? response.content : {};
    const body = typeof content.text === 'string' ? (content.encoding === 'base64' ? Buffer.from(content.text, 'base64').toString('utf8') : content.text) : '';
    const headers = headersOf(response.headers);
    const durationMs = typeof entry.time === 'number' && Number.isFinite(entry.time) ? entry.time : 0;
    const url = typeof request.url === 'string' ? request.url : '/';
    let path = '/';
    try {
      path = new URL(url, 'http://localhost').pathname;
    } catch {
      /* an unreadable URL: the path is not needed to save the call */
    }
    const call = parsed.value;
    records.push({
      id: typeof entry._recordId === 'string' ? entry._recordId : `har_entry_${i}`,
      toolCallId: call.toolCallId,
      tool: call.tool,
      conversationId: call.context.conversationId,
      risk: call.context.risk,
      kind: 'tool-call',
      receivedAt: typeof entry.startedDateTime === 'string' && !Number.isNaN(Date.parse(entry.startedDateTime)) ? entry.startedDateTime : new Date(0).toISOString(),
      durationMs,
      request: { method: 'POST', path, headers: {}, body: text! },
      response: status === null ? null : { status, headers, body },
      signature: 'unchecked',
      verdict: judgeAnswer({ status, headers, body: status === null ? null : body, durationMs }),
      replayOf: null,
    });
  });
  return { records, skipped };
}
