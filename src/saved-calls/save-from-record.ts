import { recordedToolCall } from '../median/recorded-tool-call.js';
import type { CallRecord } from '../median/call-record.js';
import type { Visitor } from '../median/protocol.js';
import { UserError } from '../shared/errors.js';
import { MAX_JSON_DEPTH, isJsonTooDeep, parseBoundedJson } from '../shared/safe-json.js';
import { SAVED_CALL_FORMAT, type SavedCall, type SavedCallExpectation } from './saved-call.js';

export interface SaveOptions {
  /** The file's name without `.json` (default: `<tool>-<last 8 of the toolCallId>`). */
  name?: string;
  /** Keep the visitor's id, email and name as recorded (default: stable placeholders). */
  keepVisitor?: boolean;
}

/** What stands in for the visitor's data in a saved call: the same every time, so files do not churn. */
export const VISITOR_PLACEHOLDERS = Object.freeze({ externalId: 'visitor-1', email: 'visitor@example.com', name: 'A Visitor' });

/** The only response header kept: the rest are hop-by-hop, volatile (date, etag, request ids) or secret (set-cookie). */
const KEPT_HEADERS = ['content-type'];
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** Shorter values are left alone: replacing them would shred ordinary text ("Al" in "Always"). */
const MIN_REPLACED_LENGTH = 3;

export function checkSavedName(name: string): string {
  if (!NAME_PATTERN.test(name) || name.endsWith('.json')) {
    throw new UserError('invalid_saved_name', `"${name}" cannot name a saved call: use letters, digits, ".", "_" and "-" (up to 100), without ".json".`, {
      exitCode: 2,
    });
  }
  return name;
}

export function defaultSavedName(tool: string, toolCallId: string): string {
  const tail = toolCallId.replace(/[^A-Za-z0-9]/g, '').slice(-8) || 'call';
  const safeTool = tool.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'tool';
  return `${safeTool}-${tail}`;
}

/** Replaces every occurrence of each `from` in every string of `value` (a deep copy). */
function replaceStrings(value: unknown, pairs: ReadonlyArray<readonly [string, string]>): unknown {
  if (pairs.length === 0) return value;
  if (typeof value === 'string') return pairs.reduce((text, [from, to]) => text.split(from).join(to), value);
  if (Array.isArray(value)) return value.map((item) => replaceStrings(item, pairs));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceStrings(v, pairs)]));
  }
  return value;
}

function placeholdersFor(visitor: Visitor): { visitor: Visitor; pairs: Array<readonly [string, string]> } {
  const pairs: Array<readonly [string, string]> = [];
  const out: Visitor = { verified: visitor.verified };
  for (const field of ['externalId', 'email', 'name'] as const) {
    const value = visitor[field];
    if (typeof value !== 'string') continue;
    out[field] = VISITOR_PLACEHOLDERS[field];
    if (value.length >= MIN_REPLACED_LENGTH && value !== VISITOR_PLACEHOLDERS[field]) pairs.push([value, VISITOR_PLACEHOLDERS[field]]);
  }
  // Longer values first, so an email holding the name is replaced whole.
  pairs.sort((a, b) => b[0].length - a[0].length);
  return { visitor: out, pairs };
}

function expectationOf(record: CallRecord): SavedCallExpectation {
  const response = record.response;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response?.headers ?? {})) {
    if (KEPT_HEADERS.includes(name.toLowerCase())) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  const expectation: SavedCallExpectation = {
    status: response?.status ?? null,
    verdict: record.verdict.kind,
    agentSees: record.verdict.agentSees,
    warnings: record.verdict.warnings.map((w) => w.code),
    headers,
  };
  if (!response) return expectation;
  if (response.truncated) return { ...expectation, isBodyCut: true };
  try {
    // An answer too deep to write back as JSON is kept as its text.
    return { ...expectation, body: parseBoundedJson(response.body) };
  } catch {
    return { ...expectation, bodyText: response.body };
  }
}

/**
 * A recorded tool call as a saved call: the call (tool, input, context), the
 * route's answer and what the agent saw. No headers of the request at all (no
 * key, no signature, no cookies: `test` signs afresh); of the answer only its
 * content-type. The visitor's id, email and name become placeholders, in the
 * input and the answer too, unless `keepVisitor`.
 */
export function savedCallFromRecord(record: CallRecord, options: SaveOptions = {}): SavedCall {
  const parsed = recordedToolCall(record);
  if (!parsed.ok) {
    if (parsed.problem === 'cut') {
      throw new UserError('replay_body_truncated', `${parsed.message}, so it cannot be saved whole.`, { hint: 'Send a smaller call with `median-dev call <tool> --input …` and save that one.' });
    }
    throw new UserError('not_a_tool_call', `${parsed.message}, so it cannot be saved as a test.`, parsed.problem === 'kind' ? { hint: 'Pick a tool call from `median-dev calls`.' } : {});
  }
  // The file is written as sorted, indented JSON (a recursive walk): a call nested past what any reader walks is refused, not half-written.
  if (isJsonTooDeep(record.request.body)) {
    throw new UserError('saved_call_too_deep', `The recorded call nests deeper than ${MAX_JSON_DEPTH} levels, so it cannot be saved as a test.`, {
      hint: 'Send a call with a shallower input with `median-dev call <tool> --input …` and save that one.',
    });
  }
  const call = parsed.value;
  const keepVisitor = options.keepVisitor === true;
  const { visitor, pairs } = keepVisitor ? { visitor: call.context.visitor, pairs: [] } : placeholdersFor(call.context.visitor);
  const expect = replaceStrings(expectationOf(record), pairs) as SavedCallExpectation;
  return {
    format: SAVED_CALL_FORMAT,
    name: options.name !== undefined ? checkSavedName(options.name) : defaultSavedName(call.tool, call.toolCallId),
    call: {
      tool: call.tool,
      toolCallId: call.toolCallId,
      input: replaceStrings(call.input, pairs) as Record<string, unknown>,
      context: {
        conversationId: call.context.conversationId,
        risk: call.context.risk,
        visitor,
        ...(call.context.approvedBy !== undefined ? { approvedBy: call.context.approvedBy } : {}),
      },
    },
    expect,
    savedFrom: { recordId: record.id, receivedAt: record.receivedAt, visitor: keepVisitor ? 'kept' : 'placeholders' },
  };
}
