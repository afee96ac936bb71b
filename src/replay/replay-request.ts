import { randomBytes, randomUUID } from 'node:crypto';
import type { CallRecord } from '../median/call-record.js';
import type { Risk, ToolCall } from '../median/protocol.js';
import { recordedToolCall } from '../median/recorded-tool-call.js';
import { RISKS } from '../median/protocol.js';
import { throwIfUnsignedOriginal } from '../median/unsigned-original.js';
import { UserError } from '../shared/errors.js';
import { isJsonTooDeep, MAX_JSON_DEPTH, parseBoundedJson } from '../shared/safe-json.js';

export { REPLAY_OF_HEADER } from '../median/index.js';

export interface ReplayOptions {
  /** Send with a fresh `call_` + 32 hex id instead of the original. */
  newId?: boolean;
  /** Replaces the input. */
  input?: unknown;
  /** Risk `reviewed`/`high` re-runs an action a person approved: needs a yes. */
  confirmed?: boolean;
  /** The original was not validly signed: re-signing it needs this explicit yes (`--allow-unsigned-original`). */
  allowUnsignedOriginal?: boolean;
  /**
   * The tool's risk as the latest manifest read declares it. The stricter of
   * it and the recorded context's risk decides whether a yes is needed.
   */
  declaredRisk?: Risk | null;
}

export interface PreparedCall {
  toolCall: ToolCall;
  /** The exact body to sign and send. */
  body: string;
}

export function newCallId(): string {
  return `call_${randomBytes(16).toString('hex')}`;
}

export function needsConfirmation(risk: Risk | null | undefined): boolean {
  return risk === 'reviewed' || risk === 'high';
}

/** The stricter of two risks (`low` < `medium` < `reviewed` < `high`); null counts as none. */
export function stricterRisk(a: Risk | null | undefined, b: Risk | null | undefined): Risk | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return RISKS.indexOf(a) >= RISKS.indexOf(b) ? a : b;
}

/** The risk a manifest read (a recorded GET the route answered) declares for a tool, if it does. */
export function declaredRiskOf(manifestRead: CallRecord | undefined, tool: string): Risk | null {
  if (!manifestRead?.response || manifestRead.response.truncated) return null;
  try {
    const manifest = JSON.parse(manifestRead.response.body) as { tools?: Array<{ name?: unknown; risk?: unknown }> };
    const risk = manifest.tools?.find((t) => t?.name === tool)?.risk;
    return (RISKS as readonly unknown[]).includes(risk) ? (risk as Risk) : null;
  } catch {
    return null; // not JSON: the manifest declares nothing we can read
  }
}

/** Builds the body of a replay from a recorded tool call. */
export function prepareReplay(record: CallRecord, options: ReplayOptions = {}): PreparedCall {
  const parsed = recordedToolCall(record);
  if (!parsed.ok) {
    if (parsed.problem === 'cut') {
      throw new UserError('replay_body_truncated', `${parsed.message}, so it cannot be sent again whole.`, { hint: 'Send a new call with `median-dev call <tool> --input …` instead.' });
    }
    throw new UserError('not_a_tool_call', `${parsed.message}, so it cannot be replayed.`, parsed.problem === 'kind' ? { hint: 'Pick a tool call from `median-dev calls`.' } : {});
  }
  const original = parsed.value;
  // A new id or input means writing the call back as JSON, which nothing can do past that depth (a recursive walk):
  // refused, never sent with an input other than the recorded one (a reader that could not parse it falls back to {}).
  if ((options.newId === true || options.input !== undefined) && isJsonTooDeep(record.request.body)) {
    throw new UserError('replay_too_deep', `The recorded call nests deeper than ${MAX_JSON_DEPTH} levels, so it can be sent again only as it was recorded: same toolCallId, same input.`, {
      hint: 'Replay it unchanged (`median-dev replay <id>` without --new-id or --input), or send a new call with `median-dev call <tool> --input …`.',
    });
  }
  throwIfUnsignedOriginal(record, options.allowUnsignedOriginal === true, 'A replay');
  const risk = stricterRisk(original.context.risk, options.declaredRisk);
  if (needsConfirmation(risk) && options.confirmed !== true) {
    const why =
      risk === original.context.risk
        ? `${original.tool} has risk "${risk}": a person approved the original call`
        : `The manifest declares ${original.tool} risk "${risk}" (the call was recorded with "${original.context.risk}")`;
    throw new UserError('replay_needs_confirmation', `${why}, and a replay runs the action again without asking anyone.`, {
      hint: 'Pass --yes to replay it anyway (or confirm in the terminal UI).',
      details: { risk },
    });
  }
  if (options.input !== undefined && (typeof options.input !== 'object' || options.input === null || Array.isArray(options.input))) {
    throw new UserError('invalid_input_json', 'The replacement input must be a JSON object, like {"orderNumber":"A-1001"}.', { exitCode: 2 });
  }
  const toolCall: ToolCall = {
    ...original,
    toolCallId: options.newId ? newCallId() : original.toolCallId,
    input: (options.input as Record<string, unknown> | undefined) ?? original.input,
  };
  // Keep the original's bytes when nothing changes, so the route sees the same request.
  const body = !options.newId && options.input === undefined ? record.request.body : JSON.stringify(toolCall);
  return { toolCall, body };
}

/** A signed test call like `median tools test`: toolCallId `test_<uuid>`. */
export function prepareTestCall(options: { tool: string; input: Record<string, unknown>; risk: Risk; conversationId?: string }): PreparedCall {
  const toolCallId = `test_${randomUUID()}`;
  const toolCall: ToolCall = {
    tool: options.tool,
    toolCallId,
    input: options.input,
    context: {
      conversationId: options.conversationId ?? toolCallId,
      risk: options.risk,
      visitor: { verified: false },
      approvedBy: 'A test from the CLI',
    },
  };
  return { toolCall, body: JSON.stringify(toolCall) };
}

/** Parses `--input <json|@file>` text (the caller reads @file). */
export function parseInputJson(text: string, source: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseBoundedJson(text); // signing writes it back: deeper than any reader walks would overflow the stack
  } catch (error) {
    throw new UserError('invalid_input_json', `${source} is not valid JSON: ${(error as Error).message}`, {
      hint: `Pass an object, like --input '{"orderNumber":"A-1001"}', or --input @input.json.`,
      exitCode: 2,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UserError('invalid_input_json', `${source} must be a JSON object, like {"orderNumber":"A-1001"}.`, { exitCode: 2 });
  }
  return value as Record<string, unknown>;
}

