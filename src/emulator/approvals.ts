import { CALL_MESSAGES, type Risk, type Verdict, type Visitor } from '../median/index.js';
import { MedianDevError } from '../shared/index.js';
import { ApiError } from './api-error.js';
import type { EndpointRegistry } from './endpoint-registry.js';
import { newApprovalRequestId, newConversationId, type CallToolRequest, type EmulatedCall, type ToolCaller } from './tool-caller.js';

/** A `reviewed` or `high` call waiting for a teammate (or the reviewer), or a run a teammate asked for. */
export interface ApprovalRequest {
  /** The approval request's id: the call's `toolCallId` once it runs. */
  id: string;
  tool: string;
  input: Record<string, unknown>;
  conversationId: string;
  visitor: Visitor;
  risk: Risk;
  /** The endpoint that served the tool when the request was made. */
  endpointId: string;
  endpointUrl: string;
  requestedAt: string;
  state: 'pending' | 'settled';
}

/**
 * How the approved run ends, for what the emulator cannot otherwise produce:
 * `no-result` — the run reported nothing (the docs: for 10 minutes; the call
 * is sent and its answer never reported); `request-failed` — Median itself
 * failed while running it (nothing is sent).
 */
export type ApprovedRunFault = 'no-result' | 'request-failed';

export interface ApproveOptions {
  /** Who let it run: a teammate's name, "The reviewer"; default "A teammate". */
  approvedBy?: string;
  fault?: ApprovedRunFault;
}

/** The docs' approval errors (tool-errors.txt, "Approval and run errors"); statuses are OURS. */
const APPROVAL_MESSAGES = Object.freeze({
  settled: 'This request has already been reviewed.',
  notFound: 'This request is unavailable in your inbox.',
});

/** What the thread shows when an approved call fails (tool-errors.txt). */
function didNotRun(request: ApprovalRequest, approvedBy: string, error: string, startedAt: string): EmulatedCall {
  const verdict: Verdict = { kind: 'not-answering', agentSees: `${request.tool} did not run: ${error}`, warnings: [], callError: error };
  return {
    tool: request.tool,
    toolCallId: request.id,
    conversationId: request.conversationId,
    endpointUrl: request.endpointUrl,
    risk: request.risk,
    input: request.input,
    visitor: request.visitor,
    approvedBy,
    startedAt,
    status: null,
    body: null,
    durationMs: 0,
    verdict,
    runError: error,
  };
}

export function createApprovals(options: { registry: EndpointRegistry; caller: ToolCaller; now: () => number }) {
  const requests = new Map<string, ApprovalRequest>();

  return {
    /** The agent asks to run a tool that needs an approval: nothing is sent yet. */
    request(call: CallToolRequest): ApprovalRequest {
      let found: ReturnType<EndpointRegistry['findTool']>;
      try {
        found = options.registry.findTool(call.tool, call.endpointUrl);
      } catch (error) {
        throw error instanceof ApiError ? new MedianDevError(error.code, error.message, { details: { status: error.status } }) : error;
      }
      const request: ApprovalRequest = {
        id: call.toolCallId ?? newApprovalRequestId(),
        tool: call.tool,
        input: call.input ?? {},
        conversationId: call.conversationId ?? newConversationId(),
        visitor: call.visitor ?? { verified: false },
        risk: found.tool.risk,
        endpointId: found.record.id,
        endpointUrl: found.record.url,
        requestedAt: new Date(options.now()).toISOString(),
        state: 'pending',
      };
      requests.set(request.id, request);
      return request;
    },

    /**
     * A teammate (or the reviewer) approves: the call runs with the request's
     * id as `toolCallId` and `approvedBy`. A tool switched off, removed or
     * moved to another endpoint meanwhile ends as "The tool is no longer
     * available." without a call.
     */
    async approve(id: string, approve: ApproveOptions = {}): Promise<EmulatedCall> {
      const request = requests.get(id);
      if (!request) throw new MedianDevError('approval_not_found', APPROVAL_MESSAGES.notFound, { details: { status: 404 } });
      if (request.state === 'settled') throw new MedianDevError('approval_settled', APPROVAL_MESSAGES.settled, { details: { status: 409 } });
      request.state = 'settled';
      const approvedBy = approve.approvedBy ?? 'A teammate';
      const startedAt = new Date(options.now()).toISOString();
      let endpointId: string | undefined;
      try {
        endpointId = options.registry.findTool(request.tool).record.id;
      } catch {
        // Removed or switched off everywhere: handled as "no longer available" below.
        endpointId = undefined;
      }
      if (endpointId !== request.endpointId) return didNotRun(request, approvedBy, CALL_MESSAGES.toolUnavailable, startedAt);
      if (approve.fault === 'request-failed') return didNotRun(request, approvedBy, CALL_MESSAGES.requestFailed, startedAt);
      const call = await options.caller.callTool({
        tool: request.tool,
        input: request.input,
        toolCallId: request.id,
        conversationId: request.conversationId,
        visitor: request.visitor,
        approvedBy,
        endpointUrl: request.endpointUrl,
      });
      // The route got the call, but its result never reached Median.
      if (approve.fault === 'no-result') return { ...didNotRun(request, approvedBy, CALL_MESSAGES.noResult, startedAt), durationMs: call.durationMs };
      return call;
    },

    pending(): ApprovalRequest[] {
      return [...requests.values()].filter((r) => r.state === 'pending');
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
