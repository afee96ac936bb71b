import { randomBytes } from 'node:crypto';
import {
  judgeAnswer,
  MEDIAN_CALL_LIMITS,
  SIGNATURE_HEADER,
  signBody,
  type AnswerFacts,
  type Risk,
  type ToolCall,
  type Verdict,
  type Visitor,
  type ManifestTool,
  judgeApprovedRun,
} from '../median/index.js';
import { MedianDevError, type Logger } from '../shared/index.js';
import { ApiError } from './api-error.js';
import type { EmulatorLimits } from './emulator-limits.js';
import type { EndpointRecord, EndpointRegistry } from './endpoint-registry.js';
import { heldCallAnswer } from './held-endpoint.js';
import { sendOutbound, type HostResolver, type OutboundResult } from './outbound-request.js';

export interface CallToolRequest {
  tool: string;
  input?: Record<string, unknown>;
  /**
   * Default: `call_` + 32 hex, like the agent's calls; for a `reviewed` or
   * `high` tool, which runs only once approved, the approval request's id
   * (`apr_` + 24 hex), as the reference says approved calls carry.
   */
  toolCallId?: string;
  /** Default `conv_` + 24 hex. */
  conversationId?: string;
  /** Default `{verified: false}`. */
  visitor?: Visitor;
  /** Default: absent for low/medium, "The reviewer" for reviewed, "A teammate" for high. */
  approvedBy?: string;
  /** Call the tool on this endpoint only. */
  endpointUrl?: string;
}

/** One call the emulated cloud made, and what the agent made of the answer. */
export interface EmulatedCall {
  tool: string;
  toolCallId: string;
  conversationId: string;
  endpointUrl: string;
  risk: Risk;
  input: Record<string, unknown>;
  visitor: Visitor;
  approvedBy?: string;
  startedAt: string;
  /** HTTP status, or null when no answer came. */
  status: number | null;
  /** The answer's text (null when none came or it was over the limit). */
  body: string | null;
  durationMs: number;
  verdict: Verdict;
  /**
   * An approved call that did not run or reported nothing: the docs' call
   * error ("The tool is no longer available.", "The tool returned no
   * result…", "The tool request failed…"); the thread shows `<tool> did not run: <error>`.
   */
  runError?: string;
  /** False for a run that was sent but never reported (Median still waits; the hourly check marks it). */
  isReported?: false;
  /** What else happened around the call (the customer's yes a `medium` tool asks for first). */
  notes?: string[];
}

export interface EmulatedDiagnostics {
  endpointUrl: string;
  status: number | null;
  /** The first 2,000 characters of the answer, as Median keeps them. */
  body: string | null;
  durationMs: number;
  verdict: Verdict;
}

export interface ToolCallerOptions {
  registry: EndpointRegistry;
  /** The signing secret of the key an endpoint is bound to. */
  secretFor: (key: string) => Uint8Array;
  limits: EmulatorLimits;
  now: () => number;
  resolvers: readonly HostResolver[];
  signal: AbortSignal;
  logger: Logger;
}

export function newToolCallId(): string {
  return `call_${randomBytes(16).toString('hex')}`;
}

/** OURS: the docs call an approval request's id opaque; this is the emulator's shape. */
export function newApprovalRequestId(): string {
  return `apr_${randomBytes(12).toString('hex')}`;
}

/** `reviewed` and `high` calls wait for an approval: their id is the approval request's. */
export function needsApproval(risk: Risk): boolean {
  return risk === 'reviewed' || risk === 'high';
}

export function newConversationId(): string {
  return `conv_${randomBytes(12).toString('hex')}`;
}

function defaultApprovedBy(risk: Risk): string | undefined {
  if (risk === 'reviewed') return 'The reviewer';
  if (risk === 'high') return 'A teammate';
  return undefined;
}

/** An ApiError from the registry as the coded error a library caller gets. */
function asCodedError(error: unknown): unknown {
  return error instanceof ApiError
    ? new MedianDevError(error.code, error.message, { details: { status: error.status } })
    : error;
}

function toFacts(result: OutboundResult): { facts: AnswerFacts; body: string | null } {
  switch (result.kind) {
    case 'answer': {
      const body = result.body.toString('utf8');
      return {
        facts: { status: result.status, headers: result.headers, body: result.body, bodySize: result.body.length, durationMs: result.durationMs },
        body,
      };
    }
    case 'too-large':
      return {
        facts: { status: result.status, headers: result.headers, body: null, bodySize: result.bytesRead, durationMs: result.durationMs, failure: 'too-large' },
        body: null,
      };
    case 'timeout':
      return { facts: { status: null, headers: {}, body: null, durationMs: result.durationMs, failure: 'timeout' }, body: null };
    case 'connection':
    case 'aborted':
      return { facts: { status: null, headers: {}, body: null, durationMs: result.durationMs, failure: 'connection' }, body: null };
    default: {
      const never: never = result;
      return never;
    }
  }
}

/** The cloud side of tool calls and diagnostics: signed POSTs to the route. */
export function createToolCaller(options: ToolCallerOptions) {
  const { registry, limits } = options;

  /** A signed POST to an endpoint, with the secret of the key it is bound to. */
  async function post(endpoint: { url: string; key: string }, body: string, timeoutMs: number): Promise<OutboundResult> {
    return sendOutbound({
      method: 'POST',
      url: endpoint.url,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': 'median-emulator (call)',
        [SIGNATURE_HEADER]: signBody(options.secretFor(endpoint.key), body, options.now()),
      },
      body,
      timeoutMs,
      maxBytes: limits.maxAnswerBytes,
      resolvers: options.resolvers,
      signal: options.signal,
    });
  }

  /**
   * Sends the call to `target` (an endpoint and the manifest entry the caller
   * holds for the tool: the live one, or a conversation's copy of the last
   * sync), signed with the key that endpoint is bound to.
   */
  async function callOn(target: { record: EndpointRecord; tool: ManifestTool }, request: CallToolRequest): Promise<EmulatedCall> {
    const found = target;
    const risk = found.tool.risk;
    const approvedBy = request.approvedBy ?? defaultApprovedBy(risk);
    const call: ToolCall = {
      tool: request.tool,
      toolCallId: request.toolCallId ?? (needsApproval(risk) ? newApprovalRequestId() : newToolCallId()),
      input: request.input ?? {},
      context: {
        conversationId: request.conversationId ?? newConversationId(),
        risk,
        visitor: request.visitor ?? { verified: false },
        ...(approvedBy === undefined ? {} : { approvedBy }),
      },
    };
    const startedAt = new Date(options.now()).toISOString();
    const endpointUrl = found.record.url;
    // An endpoint the emulator holds (production, a teammate's tunnel) is answered here; nothing listens at its URL.
    const result = found.record.held ? heldCallAnswer(endpointUrl, call.tool) : await post(found.record, JSON.stringify(call), limits.callTimeoutMs);
    const { facts, body } = toFacts(result);
    // An approved call that failed is what the thread shows: "<tool> did not run: <error>".
    const verdict = judgeApprovedRun(
      call.tool,
      call.context,
      judgeAnswer(facts, { ...MEDIAN_CALL_LIMITS, timeoutMs: limits.callTimeoutMs, maxAnswerBytes: limits.maxAnswerBytes }),
    );
    options.logger.info('emulator: tool called', {
      tool: call.tool,
      toolCallId: call.toolCallId,
      status: facts.status,
      verdict: verdict.kind,
      durationMs: facts.durationMs,
    });
    return {
      tool: call.tool,
      toolCallId: call.toolCallId,
      conversationId: call.context.conversationId,
      endpointUrl,
      risk,
      input: call.input,
      visitor: call.context.visitor,
      ...(approvedBy === undefined ? {} : { approvedBy }),
      startedAt,
      status: facts.status,
      body,
      durationMs: facts.durationMs,
      verdict,
    };
  }

  return {
    callOn,
    /**
     * A signed tool call like the cloud's: 10 s, no redirects, 100 KB. The
     * risk comes from the synced manifest. Throws `tool_not_found` (the docs'
     * messages) when no endpoint has the tool switched on.
     */
    async callTool(request: CallToolRequest): Promise<EmulatedCall> {
      let found: ReturnType<EndpointRegistry['findTool']>;
      try {
        found = registry.findTool(request.tool, request.endpointUrl);
      } catch (error) {
        throw asCodedError(error);
      }
      return callOn(found, request);
    },
    /**
     * `{"op":"diagnostics"}`, signed: Median waits 8 s and keeps the first
     * 2,000 characters. Without `endpointUrl`, the one connected endpoint
     * (the docs' sync request errors otherwise).
     */
    async diagnostics(endpointUrl?: string): Promise<EmulatedDiagnostics> {
      let endpoint: { url: string; key: string };
      try {
        const record = registry.pickForSync(endpointUrl);
        endpoint = { url: record.url, key: record.key };
      } catch (error) {
        throw asCodedError(error);
      }
      const url = endpoint.url;
      const result = await post(endpoint, JSON.stringify({ op: 'diagnostics' }), limits.diagnosticsTimeoutMs);
      const { facts, body } = toFacts(result);
      const verdict = judgeAnswer(facts, {
        timeoutMs: limits.diagnosticsTimeoutMs,
        maxAnswerBytes: limits.maxAnswerBytes,
        agentReadChars: limits.diagnosticsKeepChars,
      });
      return {
        endpointUrl: url,
        status: facts.status,
        body: body === null ? null : body.slice(0, limits.diagnosticsKeepChars),
        durationMs: facts.durationMs,
        verdict,
      };
    },
  };
}

export type ToolCaller = ReturnType<typeof createToolCaller>;
