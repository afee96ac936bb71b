import { randomUUID } from 'node:crypto';
import { RUN_MESSAGES } from '../median/index.js';
import { MedianDevError } from '../shared/index.js';
import { ApiError } from './api-error.js';
import type { ApprovalRequest, Approvals } from './approvals.js';
import type { Conversations } from './conversations.js';
import type { EmulatorLimits } from './emulator-limits.js';
import type { EndpointRegistry } from './endpoint-registry.js';
import { sampleInput } from './sample-input.js';
import type { EmulatedCall, ToolCaller } from './tool-caller.js';

/** What came of the agent calling a tool in a conversation. */
export interface AgentCallOutcome {
  conversationId: string;
  tool: string;
  /** Which turn of the conversation (1 = the first customer message). */
  turn: number;
  /** Ran at once (`low`, `medium`). */
  call?: EmulatedCall;
  /** Held for a decision (`reviewed`: the reviewer; `high`: a teammate). */
  approval?: ApprovalRequest;
  /** Not sent, and why. */
  notSent?: { reason: 'turn-limit' | 'not-in-conversation'; message: string };
  notes: string[];
}

/** OURS: the docs say "The agent sends 3 calls per turn" and no more; this is how we say one was not sent. */
export function turnLimitMessage(tool: string, perTurn: number): string {
  return `${tool} was not sent: the agent sends ${perTurn} calls per turn, and this turn had none left.`;
}

/** OURS, from "Open conversations keep the last sync". */
export function notInConversationMessage(tool: string): string {
  return `${tool} is not in this conversation's tools: it started before the sync that added it. Open conversations keep the last sync; a new conversation gets the new tools.`;
}

const YES_FIRST = "The agent asked for the customer's yes first (risk medium).";
const YES_THEN_REVIEW = "The agent asked for the customer's yes, then the call waits for the automated reviewer (risk reviewed).";

/**
 * The agent calls a tool in a conversation, as Median runs each risk level
 * (tool-endpoint-reference.txt, `risk`): `low` runs at once; `medium` runs at
 * once after the customer's yes; `reviewed` asks for that yes and waits for
 * the reviewer; `high` waits for a teammate. At most 3 calls a turn, and only
 * tools of the conversation's own copy of the last sync.
 */
export function createAgentCalls(options: {
  registry: EndpointRegistry;
  caller: ToolCaller;
  conversations: Conversations;
  approvals: Approvals;
  limits: EmulatorLimits;
}) {
  const { conversations, registry } = options;

  return async function agentCall(conversationId: string, request: { tool: string; input?: Record<string, unknown> }): Promise<AgentCallOutcome> {
    const conversation = conversations.get(conversationId);
    if (conversation.state !== 'open') {
      throw new MedianDevError('conversation_ended', `Conversation ${conversationId} has ended: start a new one.`, { details: { status: 409 } });
    }
    const turn = conversation.turns.length;
    const base = { conversationId, tool: request.tool, turn, notes: [] as string[] };
    const copy = conversations.copyOf(conversationId, request.tool);
    if (!copy) {
      const message = notInConversationMessage(request.tool);
      conversations.note(conversationId, { kind: 'not-sent', text: message });
      return { ...base, notSent: { reason: 'not-in-conversation', message } };
    }
    if (!conversations.takeTurnCall(conversationId)) {
      const message = turnLimitMessage(request.tool, options.limits.callsPerTurn);
      conversations.note(conversationId, { kind: 'not-sent', text: message });
      return { ...base, notSent: { reason: 'turn-limit', message } };
    }
    // The conversation's copy decides risk and schema; the endpoint's switch and URL are today's.
    const record = registry.records().find((r) => r.id === copy.endpointId);
    // Switched off since (or its endpoint removed): not called. Dropped by a later sync: the old copy still calls it.
    if (!record || record.tools.some((t) => t.name === request.tool && !t.enabled)) {
      throw new MedianDevError('tool_not_found', RUN_MESSAGES.unavailableOrDisabled(request.tool), { details: { status: 404 } });
    }
    const input = request.input ?? sampleInput(copy.tool.inputSchema);
    const visitor = conversations.visitorOf(conversationId);
    const risk = copy.tool.risk;
    if (risk === 'reviewed' || risk === 'high') {
      const notes = risk === 'reviewed' ? [YES_THEN_REVIEW] : [];
      let approval: ApprovalRequest;
      try {
        approval = options.approvals.request({ tool: request.tool, input, conversationId, visitor, endpointUrl: record.url });
      } catch (error) {
        throw error instanceof ApiError ? new MedianDevError(error.code, error.message, { details: { status: error.status } }) : error;
      }
      return { ...base, approval, notes };
    }
    const notes = risk === 'medium' ? [YES_FIRST] : [];
    const running = `agent:${randomUUID()}`;
    conversations.startRunning(conversationId, running);
    try {
      const call = await options.caller.callOn({ record, tool: copy.tool }, { tool: request.tool, input, conversationId, visitor });
      const noted = notes.length > 0 ? { ...call, notes } : call;
      conversations.note(conversationId, { kind: 'ran', text: `${call.tool} ran (${call.verdict.kind}).`, toolCallId: call.toolCallId });
      return { ...base, call: noted, notes };
    } finally {
      conversations.stopRunning(conversationId, running);
    }
  };
}

export type AgentCall = ReturnType<typeof createAgentCalls>;
