import type { Visitor } from '../median/index.js';
import { isMedianDevError } from '../shared/index.js';
import type { AgentCall } from './agent-calls.js';
import { ApiError } from './api-error.js';
import { MAX_APPROVALS_WAIT_S } from './approval-changes.js';
import type { ApprovalRequest, Approvals, ApprovedRunFault } from './approvals.js';
import type { Conversations } from './conversations.js';
import type { KeyRing } from './key-ring.js';

type Json = Record<string, unknown>;
type Reply = { status: number; body: unknown };

const FAULTS: readonly ApprovedRunFault[] = ['no-result', 'request-failed'];
const STATES: ReadonlyArray<ApprovalRequest['state']> = ['pending', 'approved', 'denied', 'expired'];

/** A MedianDevError from the emulator's parts as the API's `{error}` answer. */
export async function asApiAnswer<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isMedianDevError(error)) {
      const status = typeof error.details?.status === 'number' ? error.details.status : 400;
      throw new ApiError(status, error.code, error.message);
    }
    throw error;
  }
}

function text(body: Json, field: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new ApiError(400, 'invalid_body', `"${field}" is a non-empty string.`);
  return value;
}

function object(body: Json, field: string): Record<string, unknown> | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError(400, 'invalid_body', `"${field}" is a JSON object, like {"orderNumber": "A1001"}.`);
  return value as Record<string, unknown>;
}

/** `since` (a version the list had) and `wait` (seconds, capped at 25) of the approvals' long poll. */
function longPollOf(query: URLSearchParams): { since: number | undefined; waitMs: number } {
  const since = query.get('since');
  const wait = query.get('wait');
  if (since !== null && !/^\d{1,15}$/.test(since)) throw new ApiError(400, 'invalid_body', '"since" is the "version" an earlier answer gave, like since=3.');
  if (wait !== null && !/^\d+(\.\d+)?$/.test(wait)) throw new ApiError(400, 'invalid_body', `"wait" is seconds to hold the answer, 0 to ${MAX_APPROVALS_WAIT_S}.`);
  return { since: since === null ? undefined : Number(since), waitMs: Math.min(Number(wait ?? 0), MAX_APPROVALS_WAIT_S) * 1_000 };
}

function visitorOf(body: Json): Visitor | undefined {
  const value = object(body, 'visitor');
  if (value === undefined) return undefined;
  if (typeof value.verified !== 'boolean') throw new ApiError(400, 'invalid_body', '"visitor" is {"verified": true|false, "externalId"?, "email"?, "name"?}.');
  const visitor: Visitor = { verified: value.verified };
  for (const key of ['externalId', 'email', 'name'] as const) if (typeof value[key] === 'string') visitor[key] = value[key] as string;
  return visitor;
}

/**
 * OUR extensions for conversations, approvals, teammate runs and keys
 * (authenticated like /v1, any key of the org):
 *
 * - `POST /v1/emulator/conversations {visitor?}` → 201 `{conversation}` once every endpoint synced (`firstReply`)
 * - `GET /v1/emulator/conversations/{id}` → `{conversation}` (thread, turns, running, unread)
 * - `POST …/conversations/{id}/messages` → a new turn; `…/calls {tool, input?}` → `{outcome}` (the agent calls);
 *   `…/end`, `…/archive`, `…/unarchive`, `…/read`
 * - `GET /v1/emulator/approvals[?state=pending][&since=<version>&wait=<s>]` → `{approvals, version}`: with `since`
 *   the list's version now and `wait` (seconds, at most 25), held until the list changes or the wait ends (a long poll);
 *   `GET …/approvals/{id}` → `{approval}`
 * - `POST …/approvals/{id}/approve {as?, input?, fault?}` → `{call}`; `…/deny {as?}` → `{approval}`
 * - `POST /v1/emulator/runs {tool, input?, conversationId? | as?, by?}` → `{call}`: a teammate runs a tool
 * - `POST /v1/emulator/keys` → 201 `{key}` (Create the new key); `POST /v1/emulator/keys/revoke {key}` → `{revoked: true}`
 */
export function createConversationRoutes(options: { conversations: Conversations; approvals: Approvals; agentCall: AgentCall; keys: KeyRing; endConversation: (id: string) => unknown }) {
  const { conversations, approvals } = options;

  async function conversation(method: string, id: string, action: string | undefined, body: Json): Promise<Reply> {
    if (action === undefined) {
      if (method !== 'GET') throw new ApiError(405, 'method_not_allowed', 'A conversation answers GET.', { allow: 'GET' });
      return { status: 200, body: { conversation: await asApiAnswer(() => conversations.get(id)) } };
    }
    if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', `…/${action} answers POST.`, { allow: 'POST' });
    switch (action) {
      case 'messages':
        return { status: 200, body: { conversation: await asApiAnswer(() => conversations.newTurn(id)) } };
      case 'calls': {
        const tool = text(body, 'tool');
        if (tool === undefined) throw new ApiError(400, 'invalid_body', 'Send {"tool": "name", "input": {…}}.');
        const input = object(body, 'input');
        const outcome = await asApiAnswer(() => options.agentCall(id, { tool, ...(input ? { input } : {}) }));
        return { status: 200, body: { outcome } };
      }
      case 'end':
        return { status: 200, body: { conversation: await asApiAnswer(() => options.endConversation(id)) } };
      case 'archive':
      case 'unarchive':
        return { status: 200, body: { conversation: await asApiAnswer(() => conversations.setArchived(id, action === 'archive')) } };
      case 'read':
        return { status: 200, body: { conversation: await asApiAnswer(() => conversations.markRead(id)) } };
      default:
        throw new ApiError(404, 'not_found', `No conversation action "${action}".`);
    }
  }

  async function approval(method: string, id: string, action: string | undefined, body: Json): Promise<Reply> {
    if (action === undefined) {
      if (method !== 'GET') throw new ApiError(405, 'method_not_allowed', 'An approval answers GET.', { allow: 'GET' });
      return { status: 200, body: { approval: await asApiAnswer(() => approvals.get(id)) } };
    }
    if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', `…/${action} answers POST.`, { allow: 'POST' });
    const as = text(body, 'as') ?? text(body, 'approvedBy');
    if (action === 'deny') return { status: 200, body: { approval: await asApiAnswer(() => approvals.deny(id, as === undefined ? {} : { as })) } };
    if (action !== 'approve') throw new ApiError(404, 'not_found', `No approval action "${action}".`);
    const fault = body.fault;
    if (fault !== undefined && !FAULTS.includes(fault as ApprovedRunFault)) throw new ApiError(400, 'invalid_body', `"fault" is one of: ${FAULTS.join(', ')}.`);
    const input = object(body, 'input');
    const call = await asApiAnswer(() =>
      approvals.approve(id, { ...(as === undefined ? {} : { as }), ...(input ? { input } : {}), ...(fault === undefined ? {} : { fault: fault as ApprovedRunFault }) }),
    );
    return { status: 200, body: { call } };
  }

  return {
    /** Answers `rest` (the path after /v1/emulator), or undefined when it is not one of these routes. */
    async handle(method: string, rest: string, query: URLSearchParams, body: Json, signal?: AbortSignal): Promise<Reply | undefined> {
      const parts = rest.split('/').slice(1).map((p) => decodeURIComponent(p));
      const [area, id, action, extra] = parts;
      if (extra !== undefined) return undefined;
      if (area === 'conversations') {
        if (id === undefined) {
          if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', '/v1/emulator/conversations answers POST.', { allow: 'POST' });
          const visitor = visitorOf(body);
          return { status: 201, body: { conversation: await conversations.start(visitor ? { visitor } : {}) } };
        }
        return conversation(method, id, action, body);
      }
      if (area === 'approvals' && id !== undefined) return approval(method, id, action, body);
      if (area === 'approvals' && method === 'GET') {
        const state = query.get('state') ?? undefined;
        if (state !== undefined && !STATES.includes(state as ApprovalRequest['state'])) throw new ApiError(400, 'invalid_body', `"state" is one of: ${STATES.join(', ')}.`);
        const { since, waitMs } = longPollOf(query);
        if (since !== undefined) await approvals.changes.waitPast(since, waitMs, signal);
        return { status: 200, body: { approvals: approvals.list(state as ApprovalRequest['state'] | undefined), version: approvals.changes.version() } };
      }
      if (area === 'runs' && id === undefined && method === 'POST') {
        const tool = text(body, 'tool');
        if (tool === undefined) throw new ApiError(400, 'invalid_body', 'Send {"tool": "name", "input": {…}, "conversationId" or "as", "by"}.');
        const input = object(body, 'input');
        const conversationId = text(body, 'conversationId');
        const as = text(body, 'as');
        const by = text(body, 'by');
        const call = await asApiAnswer(() =>
          approvals.runAsTeammate({ tool, ...(input ? { input } : {}), ...(conversationId ? { conversationId } : {}), ...(as ? { as } : {}), ...(by ? { by } : {}) }),
        );
        return { status: 200, body: { call } };
      }
      if (area === 'keys' && method === 'POST') {
        if (id === undefined) return { status: 201, body: { key: options.keys.create() } };
        if (id === 'revoke' && action === undefined) {
          const key = text(body, 'key');
          if (key === undefined) throw new ApiError(400, 'invalid_body', 'Send {"key": "median_key_…"}.');
          await asApiAnswer(() => options.keys.revoke(key));
          return { status: 200, body: { revoked: true } };
        }
      }
      return undefined;
    },
  };
}

export type ConversationRoutes = ReturnType<typeof createConversationRoutes>;
