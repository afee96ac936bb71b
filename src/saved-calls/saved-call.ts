import { RISKS, type Risk, type ToolCallContext } from '../median/protocol.js';
import { VERDICT_KINDS, type VerdictKind } from '../median/verdict-types.js';
import { UserError } from '../shared/errors.js';
import { stableJson } from './stable-json.js';

/**
 * One saved call: a file under `median-calls/`, meant to be committed, that
 * `median-dev test` sends to the route again and checks. JSON (not YAML):
 * the records, the route protocol and the HAR are JSON already, every editor
 * and `git diff` reads it, and it needs no parser beyond `JSON.parse` (a YAML
 * library would be the project's first new runtime dependency for it).
 * The format is docs/saved-calls.md; the key order is the one written here.
 */
export const SAVED_CALL_FORMAT = 'median-dev/saved-call@1';

export interface SavedCallExpectation {
  /** The route's HTTP status, or null when it did not answer. */
  status: number | null;
  /** What the agent was told (SPEC §2.3). */
  verdict: VerdictKind;
  /** The text the agent read, for a reader of the file (not compared: `body` is). */
  agentSees: string;
  /** Warning codes of the verdict (the docs' limits): a new one fails the test. */
  warnings: string[];
  /** The answer's JSON, when it was JSON. */
  body?: unknown;
  /** The answer as text, when it was not JSON. */
  bodyText?: string;
  /** The answer was cut at the recording limit: only its verdict is compared. */
  isBodyCut?: boolean;
  /** Response headers worth reading (content-type); never compared. */
  headers: Record<string, string>;
}

export interface SavedCall {
  format: typeof SAVED_CALL_FORMAT;
  name: string;
  call: {
    tool: string;
    /** The original id; `test` sends a fresh one unless `--same-id`. */
    toolCallId: string;
    input: Record<string, unknown>;
    context: ToolCallContext;
  };
  expect: SavedCallExpectation;
  /**
   * Paths into the answer's JSON that change from one call to the next
   * (`result.eta`, `result.items.*.id`): not compared. Absent until the first
   * `test` run found them (it sends the call twice); edit it by hand freely.
   */
  ignore?: string[];
  /** Where it came from: the record, when it was recorded. */
  savedFrom: { recordId: string | null; receivedAt: string | null; visitor: 'placeholders' | 'kept' };
}

/** A saved call with the file it was read from. */
export interface LoadedSavedCall {
  file: string;
  saved: SavedCall;
}

/** The file's text: stable key order, two-space indent, a final newline. */
export function serializeSavedCall(saved: SavedCall): string {
  const { call, expect } = saved;
  const ordered = {
    format: saved.format,
    name: saved.name,
    call: {
      tool: call.tool,
      toolCallId: call.toolCallId,
      input: call.input,
      context: {
        conversationId: call.context.conversationId,
        risk: call.context.risk,
        visitor: call.context.visitor,
        ...(call.context.approvedBy !== undefined ? { approvedBy: call.context.approvedBy } : {}),
      },
    },
    expect: {
      status: expect.status,
      verdict: expect.verdict,
      agentSees: expect.agentSees,
      warnings: expect.warnings,
      ...(expect.isBodyCut ? { isBodyCut: true } : {}),
      ...(expect.body !== undefined ? { body: expect.body } : {}),
      ...(expect.bodyText !== undefined ? { bodyText: expect.bodyText } : {}),
      headers: expect.headers,
    },
    ...(saved.ignore !== undefined ? { ignore: saved.ignore } : {}),
    savedFrom: saved.savedFrom,
  };
  // Structure keys keep the order above; the data inside (input, body) is sorted, so a re-save does not reorder it.
  return `${stableJson(ordered, { sortBelow: ['call.input', 'call.context.visitor', 'expect.body', 'expect.headers'] })}\n`;
}

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(file: string, what: string): UserError {
  return new UserError('invalid_saved_call', `${file} is not a saved call: ${what}.`, {
    hint: 'Fix the file by hand (the format is in docs/saved-calls.md), or save the call again with `median-dev calls save <toolCallId>`.',
  });
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Reads a saved call's text, or a coded error naming the file and what is wrong. */
export function parseSavedCall(text: string, file: string): SavedCall {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `not JSON (${(error as Error).message})`);
  }
  if (!isObject(json)) throw invalid(file, 'not a JSON object');
  if (json.format !== SAVED_CALL_FORMAT) throw invalid(file, `"format" is ${JSON.stringify(json.format ?? null)}, not "${SAVED_CALL_FORMAT}"`);
  if (typeof json.name !== 'string' || json.name === '') throw invalid(file, '"name" is missing');
  const call = json.call;
  if (!isObject(call) || typeof call.tool !== 'string' || typeof call.toolCallId !== 'string') throw invalid(file, '"call" needs "tool" and "toolCallId"');
  if (!isObject(call.input)) throw invalid(file, '"call.input" must be an object');
  const context = call.context;
  if (!isObject(context) || typeof context.conversationId !== 'string' || !(RISKS as readonly unknown[]).includes(context.risk)) {
    throw invalid(file, `"call.context" needs "conversationId" and a "risk" of ${RISKS.join(', ')}`);
  }
  if (!isObject(context.visitor) || typeof context.visitor.verified !== 'boolean') throw invalid(file, '"call.context.visitor" needs "verified"');
  const expect = json.expect;
  if (!isObject(expect)) throw invalid(file, '"expect" is missing');
  if (!(expect.status === null || (typeof expect.status === 'number' && Number.isInteger(expect.status)))) throw invalid(file, '"expect.status" must be a number or null');
  if (!(VERDICT_KINDS as readonly unknown[]).includes(expect.verdict)) throw invalid(file, `"expect.verdict" must be one of ${VERDICT_KINDS.join(', ')}`);
  if (expect.bodyText !== undefined && typeof expect.bodyText !== 'string') throw invalid(file, '"expect.bodyText" must be text');
  if (json.ignore !== undefined && !isStringList(json.ignore)) throw invalid(file, '"ignore" must be a list of paths like "result.eta"');
  const savedFrom = isObject(json.savedFrom) ? json.savedFrom : {};
  const headers = isObject(expect.headers) ? Object.fromEntries(Object.entries(expect.headers).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
  return {
    format: SAVED_CALL_FORMAT,
    name: json.name,
    call: {
      tool: call.tool,
      toolCallId: call.toolCallId,
      input: call.input,
      context: {
        conversationId: context.conversationId,
        risk: context.risk as Risk,
        visitor: context.visitor as unknown as ToolCallContext['visitor'],
        ...(typeof context.approvedBy === 'string' ? { approvedBy: context.approvedBy } : {}),
      },
    },
    expect: {
      status: expect.status,
      verdict: expect.verdict as VerdictKind,
      agentSees: typeof expect.agentSees === 'string' ? expect.agentSees : '',
      warnings: isStringList(expect.warnings) ? expect.warnings : [],
      ...(expect.isBodyCut === true ? { isBodyCut: true } : {}),
      ...(Object.hasOwn(expect, 'body') ? { body: expect.body } : {}),
      ...(typeof expect.bodyText === 'string' ? { bodyText: expect.bodyText } : {}),
      headers,
    },
    ...(json.ignore !== undefined ? { ignore: json.ignore as string[] } : {}),
    savedFrom: {
      recordId: typeof savedFrom.recordId === 'string' ? savedFrom.recordId : null,
      receivedAt: typeof savedFrom.receivedAt === 'string' ? savedFrom.receivedAt : null,
      visitor: savedFrom.visitor === 'kept' ? 'kept' : 'placeholders',
    },
  };
}
