import { CALL_MESSAGES, checkInputAgainstSchema, RUN_INPUT_MESSAGES, RUN_MESSAGES, type Visitor } from '../median/index.js';
import { everyOnClock, MedianDevError, type Clock, type ClockTimer, type Logger } from '../shared/index.js';
import { coded, didNotRun, runError, type ApprovalRequest, type ApprovedRunFault, type ApproveOptions, type ReviewerDecision, type TeammateRun } from './approval-types.js';
import { createApprovalChanges } from './approval-changes.js';
import type { Conversations } from './conversations.js';
import type { EmulatorLimits } from './emulator-limits.js';
import type { EndpointRecord, EndpointRegistry } from './endpoint-registry.js';
import { newApprovalRequestId, newConversationId, type CallToolRequest, type EmulatedCall, type ToolCaller } from './tool-caller.js';

export type { ApprovalRequest, ApprovedRunFault, ApproveOptions, ReviewerDecision, TeammateRun } from './approval-types.js';

export interface ApprovalsOptions {
  registry: EndpointRegistry;
  caller: ToolCaller;
  conversations: Conversations;
  limits: EmulatorLimits;
  clock: Clock;
  logger: Logger;
  /** What the reviewer does with `reviewed` calls; default approve. */
  reviewer?: ReviewerDecision;
}

export function createApprovals(options: ApprovalsOptions) {
  const { registry, conversations, limits, clock } = options;
  const requests = new Map<string, ApprovalRequest>();
  const timers = new Set<ClockTimer>();
  const listeners = new Set<(call: EmulatedCall) => void>();
  /** Runs sent whose result never reported (fault `no-result`), for the hourly check. */
  const silent = new Map<string, { request: ApprovalRequest | undefined; call: EmulatedCall; sentAt: number }>();
  const iso = (): string => new Date(clock.now()).toISOString();
  const changes = createApprovalChanges(clock);

  const later = (ms: number, run: () => void): void => {
    const timer = clock.setTimer(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  // "The hourly check marks it, so it can take up to 70 minutes to show."
  const hourly = everyOnClock(clock, limits.noResultCheckEveryMs, () => {
    for (const [id, entry] of silent) {
      if (clock.now() - entry.sentAt < limits.noResultAfterMs) continue;
      silent.delete(id);
      const marked = didNotRun(entry.call, CALL_MESSAGES.noResult);
      if (entry.request) entry.request.run = marked;
      conversations.has(entry.call.conversationId) && conversations.stopRunning(entry.call.conversationId, id);
      thread(marked);
      emit(marked);
    }
  });

  function emit(call: EmulatedCall): void {
    for (const listener of listeners) listener(call);
  }

  function thread(call: EmulatedCall): void {
    if (!conversations.has(call.conversationId)) return;
    const failed = call.verdict.didNotRun;
    conversations.note(call.conversationId, failed
      ? { kind: 'did-not-run', text: failed, toolCallId: call.toolCallId }
      : { kind: 'ran', text: `${call.tool} ran (${call.verdict.kind}), approved by ${call.approvedBy ?? 'nobody'}.`, toolCallId: call.toolCallId });
  }

  function find(id: string): ApprovalRequest {
    const request = requests.get(id);
    if (!request) throw runError('approval_not_found', RUN_MESSAGES.notFound);
    if (request.state === 'pending' && clock.now() - Date.parse(request.requestedAt) >= limits.approvalTtlMs) expire(request, 'no-decision');
    if (request.state === 'expired') {
      throw runError('approval_expired', request.expiredBecause === 'conversation-ended' ? RUN_MESSAGES.expiredConversationEnded : RUN_MESSAGES.expiredNoDecision);
    }
    if (request.state !== 'pending') throw runError('approval_settled', RUN_MESSAGES.settled);
    return request;
  }

  function expire(request: ApprovalRequest, why: NonNullable<ApprovalRequest['expiredBecause']>): void {
    if (request.state !== 'pending') return;
    request.state = 'expired';
    request.expiredBecause = why;
    delete request.waitingFor;
    changes.changed();
    conversations.note(request.conversationId, {
      kind: 'expired',
      text: why === 'conversation-ended' ? RUN_MESSAGES.expiredConversationEnded : RUN_MESSAGES.expiredNoDecision,
      toolCallId: request.id,
    });
  }

  /** The rules every run obeys: not in an archived conversation, at most three running in one. */
  function checkConversation(conversationId: string): void {
    if (!conversations.has(conversationId)) return;
    if (conversations.isArchived(conversationId)) throw runError('conversation_archived', RUN_MESSAGES.conversationArchived);
    if (conversations.runningCount(conversationId) >= limits.runningPerConversation) throw runError('too_many_running', RUN_MESSAGES.tooManyRunning);
  }

  function checkInput(tool: { inputSchema: unknown }, input: Record<string, unknown>): void {
    const checked = checkInputAgainstSchema(tool.inputSchema, input, RUN_INPUT_MESSAGES);
    if (!checked.ok) throw runError('invalid_input', checked.message);
  }

  /** Sends the approved call and keeps the conversation's count of running tools. */
  async function send(target: { record: EndpointRecord; tool: Parameters<ToolCaller['callOn']>[0]['tool'] }, call: CallToolRequest & { toolCallId: string; conversationId: string }, fault: ApprovedRunFault | undefined, request: ApprovalRequest | undefined): Promise<EmulatedCall> {
    const tracked = conversations.has(call.conversationId);
    if (tracked) conversations.startRunning(call.conversationId, call.toolCallId);
    let sent: EmulatedCall;
    try {
      sent = await options.caller.callOn(target, call);
    } catch (error) {
      if (tracked) conversations.stopRunning(call.conversationId, call.toolCallId);
      throw error;
    }
    if (fault === 'no-result') {
      // The route got the call, but its result never reached Median: it stays running until the hourly check.
      const unreported: EmulatedCall = { ...sent, isReported: false };
      silent.set(call.toolCallId, { request, call: unreported, sentAt: clock.now() });
      return unreported;
    }
    if (tracked) conversations.stopRunning(call.conversationId, call.toolCallId);
    thread(sent);
    emit(sent);
    return sent;
  }

  async function approve(id: string, approve: ApproveOptions = {}): Promise<EmulatedCall> {
    const request = find(id);
    checkConversation(request.conversationId);
    const input = approve.input ?? request.input;
    const approvedBy = approve.as ?? approve.approvedBy ?? 'A teammate';
    let target: ReturnType<EndpointRegistry['findTool']> | undefined;
    try {
      target = registry.findTool(request.tool);
    } catch {
      // Switched off or removed everywhere: "no longer available" below.
      target = undefined;
    }
    if (approve.input && target) checkInput(target.tool, input);
    request.state = 'approved';
    request.decidedBy = approvedBy;
    request.decidedAt = iso();
    delete request.waitingFor;
    changes.changed();
    const base = { tool: request.tool, toolCallId: request.id, conversationId: request.conversationId, endpointUrl: request.endpointUrl, risk: request.risk, input, visitor: request.visitor, approvedBy, startedAt: iso() };
    let run: EmulatedCall;
    if (!target || target.record.id !== request.endpointId) {
      // Switched off, removed, or moved to another endpoint between the request and the approval.
      run = didNotRun(base, CALL_MESSAGES.toolUnavailable);
    } else if (approve.fault === 'request-failed') {
      run = didNotRun(base, CALL_MESSAGES.requestFailed);
    } else {
      run = await send(target, { tool: request.tool, input, toolCallId: request.id, conversationId: request.conversationId, visitor: request.visitor, approvedBy }, approve.fault, request);
      request.run = run;
      return run;
    }
    request.run = run;
    thread(run);
    emit(run);
    return run;
  }

  return {
    /** The agent asks to run a `reviewed`/`high` tool: nothing is sent until a decision. */
    request(call: CallToolRequest & { waitingFor?: 'reviewer' | 'teammate' }): ApprovalRequest {
      let found: ReturnType<EndpointRegistry['findTool']>;
      try {
        found = registry.findTool(call.tool, call.endpointUrl);
      } catch (error) {
        throw coded(error);
      }
      const risk = found.tool.risk;
      const waitingFor = call.waitingFor ?? (risk === 'reviewed' ? 'reviewer' : 'teammate');
      const request: ApprovalRequest = {
        id: call.toolCallId ?? newApprovalRequestId(),
        tool: call.tool,
        input: call.input ?? {},
        conversationId: call.conversationId ?? newConversationId(),
        visitor: call.visitor ?? { verified: false },
        risk,
        endpointId: found.record.id,
        endpointUrl: found.record.url,
        requestedAt: iso(),
        state: 'pending',
        waitingFor,
      };
      requests.set(request.id, request);
      changes.changed();
      later(limits.approvalTtlMs, () => expire(request, 'no-decision'));
      conversations.note(request.conversationId, {
        kind: 'waiting',
        text: `${request.tool} waits for ${waitingFor === 'reviewer' ? 'the automated reviewer' : "a teammate's approval"}.`,
        toolCallId: request.id,
      });
      if (waitingFor === 'reviewer') later(limits.reviewerDelayMs, () => review(request));
      return { ...request };
    },

    /**
     * A teammate (or the reviewer) approves: the call runs with the request's
     * id as `toolCallId` and `approvedBy`. A tool switched off, removed or
     * moved to another endpoint meanwhile ends as "The tool is no longer
     * available." without a call.
     */
    approve,

    /** A teammate declines: nothing is sent; the agent is told no. */
    deny(id: string, deny: { as?: string } = {}): ApprovalRequest {
      const request = find(id);
      request.state = 'denied';
      request.decidedBy = deny.as ?? 'A teammate';
      request.decidedAt = iso();
      delete request.waitingFor;
      changes.changed();
      conversations.note(request.conversationId, { kind: 'declined', text: `${request.tool} was declined by ${request.decidedBy}.`, toolCallId: request.id });
      return { ...request };
    },

    /** A teammate runs a tool themselves (any risk): checked by the docs' run rules, then sent. */
    async runAsTeammate(run: TeammateRun): Promise<EmulatedCall> {
      if (run.conversationId !== undefined && run.as !== undefined) throw runError('invalid_request', RUN_MESSAGES.conversationIdOrAs);
      if (run.conversationId !== undefined && !conversations.has(run.conversationId)) {
        throw new MedianDevError('conversation_not_found', `No conversation ${run.conversationId} in this emulator.`, { details: { status: 404 } });
      }
      let target: ReturnType<EndpointRegistry['findTool']>;
      try {
        target = registry.findTool(run.tool);
      } catch (error) {
        throw coded(error);
      }
      const conversationId = run.conversationId ?? newConversationId();
      checkConversation(conversationId);
      const input = run.input ?? {};
      checkInput(target.tool, input);
      const visitor: Visitor = run.conversationId !== undefined ? conversations.visitorOf(run.conversationId) : run.as !== undefined ? { verified: true, externalId: run.as } : { verified: false };
      return send(target, { tool: run.tool, input, toolCallId: newApprovalRequestId(), conversationId, visitor, approvedBy: run.by ?? 'A teammate' }, undefined, undefined);
    },

    /** The conversation ended: its pending requests expire. */
    expireConversation(conversationId: string): void {
      for (const request of requests.values()) if (request.conversationId === conversationId) expire(request, 'conversation-ended');
    },

    get(id: string): ApprovalRequest {
      const request = requests.get(id);
      if (!request) throw runError('approval_not_found', RUN_MESSAGES.notFound);
      return { ...request };
    },

    list(state?: ApprovalRequest['state']): ApprovalRequest[] {
      return [...requests.values()].filter((r) => state === undefined || r.state === state).map((r) => ({ ...r }));
    },

    /** The list's version and the long poll's wait (OUR extension, not Median's). */
    changes: { version: changes.version, waitPast: changes.waitPast },

    pending(): ApprovalRequest[] {
      return [...requests.values()].filter((r) => r.state === 'pending').map((r) => ({ ...r }));
    },

    /** Every run that ended (approved, the reviewer's, a teammate's, or marked by the hourly check). */
    onRun(listener: (call: EmulatedCall) => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },

    close(): void {
      hourly.cancel();
      for (const timer of timers) timer.cancel();
      timers.clear();
      listeners.clear();
      changes.close();
    },
  };

  function review(request: ApprovalRequest): void {
    if (request.state !== 'pending' || request.waitingFor !== 'reviewer') return;
    if ((options.reviewer ?? 'approve') === 'hand-to-teammate') {
      request.waitingFor = 'teammate';
      changes.changed();
      conversations.note(request.conversationId, { kind: 'note', text: `The reviewer handed ${request.tool} to a teammate.`, toolCallId: request.id });
      return;
    }
    approve(request.id, { as: 'The reviewer' }).catch((error: unknown) =>
      options.logger.warn('emulator: the reviewer could not run the call', { id: request.id, error: String(error) }),
    );
  }
}

export type Approvals = ReturnType<typeof createApprovals>;
