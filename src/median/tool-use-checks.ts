import type { Endpoint } from './api-client.js';
import type { ManifestTool } from './protocol.js';
import { syncFix } from './sync-fixes.js';

/** The docs' five checks for "The agent does not use a tool" (tool-errors.txt), in the docs' order. */
export const TOOL_USE_CHECKS = ['synced', 'switched-on', 'conversation-after-deploy', 'description', 'calls-left'] as const;
export type ToolUseCheckName = (typeof TOOL_USE_CHECKS)[number];

export interface ToolUseCheck {
  check: ToolUseCheckName;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  fix?: string;
}

export interface ToolUseFacts {
  tool: string;
  /** Median's endpoints (`GET /v1/tool-endpoints`), or undefined when they could not be read. */
  endpoints: Endpoint[] | undefined;
  /** The route's manifest as a signed read finds it now, or undefined when it could not be read. */
  manifest: ManifestTool[] | undefined;
  /** Recorded tool calls (any tool): when, in which conversation. */
  calls: ReadonlyArray<{ tool: string | null; conversationId: string | null; receivedAt: string }>;
}

/** "The agent sends 3 calls per turn." */
export const CALLS_PER_TURN = 3;
/** OURS: calls of one conversation this close together count as one turn (the docs do not say how long a turn takes). */
export const TURN_WINDOW_MS = 30_000;
/** OURS: a description shorter than this, or of fewer words, says too little for the agent to pick the tool. */
export const SHORT_DESCRIPTION = Object.freeze({ chars: 24, words: 4 });

const SYNC_FIX = "Press Sync in the menu at the end of the endpoint's row (`median-dev sync`).";
const NEW_CONVERSATION = 'Open conversations keep the last sync: try it in a new conversation.';

function checkSynced(facts: ToolUseFacts, serving: Endpoint | undefined): ToolUseCheck {
  const { tool } = facts;
  if (facts.endpoints === undefined) return { check: 'synced', status: 'warn', message: "Median's endpoint list could not be read.", fix: 'Check MEDIAN_KEY and --median-api (`median-dev doctor`).' };
  if (!serving) {
    const served = facts.manifest?.some((t) => t.name === tool);
    return served
      ? { check: 'synced', status: 'fail', message: `The route serves ${tool}, but no endpoint Median holds lists it: the last sync did not take it in.`, fix: SYNC_FIX }
      : {
          check: 'synced',
          status: 'fail',
          message: `No endpoint serves ${tool}${facts.manifest ? `, and the route's manifest does not have it (it has ${facts.manifest.map((t) => t.name).join(', ') || 'no tools'})` : ''}.`,
          fix: 'Check the name, and that the route exports the tool.',
        };
  }
  if (serving.status === 'failed') {
    return {
      check: 'synced',
      status: 'warn',
      message: `${serving.url}: Sync failed: ${serving.error ?? ''} (a failed sync keeps the last good tool set, which has ${tool}).`,
      fix: syncFix(serving.error ?? '') ?? SYNC_FIX,
    };
  }
  if (serving.status === 'pending') return { check: 'synced', status: 'warn', message: `${serving.url} is syncing right now.`, fix: 'Wait for the sync, then check again.' };
  return { check: 'synced', status: 'ok', message: `${serving.url} synced${serving.syncedAt ? ` at ${serving.syncedAt}` : ''}, with ${tool}.` };
}

function checkSwitch(tool: string, serving: Endpoint | undefined): ToolUseCheck {
  const entry = serving?.tools.find((t) => t.name === tool);
  if (!entry) return { check: 'switched-on', status: 'warn', message: `Median holds no switch for ${tool} (no endpoint lists it).` };
  return entry.enabled
    ? { check: 'switched-on', status: 'ok', message: `${tool} is switched on.` }
    : { check: 'switched-on', status: 'fail', message: `${tool} is switched off.`, fix: `Switch it on: the tool's switch on Agent → Tools, or \`median tools enable ${tool}\`.` };
}

function checkDeploy(facts: ToolUseFacts, serving: Endpoint | undefined): ToolUseCheck {
  if (!facts.manifest || !serving) return { check: 'conversation-after-deploy', status: 'warn', message: `Cannot compare the route's manifest with Median's copy.`, fix: NEW_CONVERSATION };
  const synced = new Set(serving.tools.map((t) => t.name));
  const served = new Set(facts.manifest.map((t) => t.name));
  const added = [...served].filter((n) => !synced.has(n));
  const gone = [...synced].filter((n) => !served.has(n));
  if (added.length > 0 || gone.length > 0) {
    const what = [added.length ? `new: ${added.join(', ')}` : '', gone.length ? `gone: ${gone.join(', ')}` : ''].filter(Boolean).join('; ');
    return { check: 'conversation-after-deploy', status: 'fail', message: `The route's tools differ from what Median synced (${what}): this deploy is not synced yet.`, fix: `${SYNC_FIX} ${NEW_CONVERSATION}` };
  }
  return {
    check: 'conversation-after-deploy',
    status: 'ok',
    message: `Median's copy matches the route. A conversation that started before ${serving.syncedAt ?? 'the last sync'} still has the tools it started with.`,
    fix: NEW_CONVERSATION,
  };
}

function checkDescription(facts: ToolUseFacts): ToolUseCheck {
  const entry = facts.manifest?.find((t) => t.name === facts.tool);
  const fix = 'The agent picks tools by their description: say in one sentence what it does and when to use it.';
  if (!entry) return { check: 'description', status: 'warn', message: `The route's manifest has no ${facts.tool} to read a description from.` };
  const text = entry.description.trim();
  if (text === '') return { check: 'description', status: 'fail', message: `${facts.tool} has an empty description.`, fix };
  const twin = facts.manifest?.find((t) => t.name !== facts.tool && t.description.trim().toLowerCase() === text.toLowerCase());
  if (twin) return { check: 'description', status: 'warn', message: `${facts.tool} has the same description as ${twin.name}: the agent cannot tell them apart.`, fix };
  if (text.length < SHORT_DESCRIPTION.chars || text.split(/\s+/).length < SHORT_DESCRIPTION.words) {
    return { check: 'description', status: 'warn', message: `${facts.tool}'s description is very short ("${text}").`, fix };
  }
  return { check: 'description', status: 'ok', message: `"${text}"` };
}

/** Recorded turns that used all 3 calls: 3 calls of one conversation within the turn window. */
export function fullTurns(calls: ToolUseFacts['calls']): Array<{ conversationId: string; tools: string[] }> {
  const byConversation = new Map<string, Array<{ at: number; tool: string }>>();
  for (const call of calls) {
    if (!call.conversationId || !call.tool) continue;
    const list = byConversation.get(call.conversationId) ?? [];
    list.push({ at: Date.parse(call.receivedAt), tool: call.tool });
    byConversation.set(call.conversationId, list);
  }
  const full: Array<{ conversationId: string; tools: string[] }> = [];
  for (const [conversationId, list] of byConversation) {
    list.sort((a, b) => a.at - b.at);
    for (let i = 0; i + CALLS_PER_TURN - 1 < list.length; i++) {
      const last = list[i + CALLS_PER_TURN - 1]!;
      if (last.at - list[i]!.at <= TURN_WINDOW_MS) {
        full.push({ conversationId, tools: list.slice(i, i + CALLS_PER_TURN).map((c) => c.tool) });
        break;
      }
    }
  }
  return full;
}

function checkCallsLeft(facts: ToolUseFacts): ToolUseCheck {
  const full = fullTurns(facts.calls).filter((t) => !t.tools.includes(facts.tool));
  if (full.length === 0) {
    return { check: 'calls-left', status: 'ok', message: `No recorded turn used all ${CALLS_PER_TURN} of its calls on other tools.` };
  }
  const first = full[0]!;
  return {
    check: 'calls-left',
    status: 'warn',
    message: `${full.length} recorded turn${full.length === 1 ? '' : 's'} used all ${CALLS_PER_TURN} calls on other tools (e.g. ${first.conversationId}: ${first.tools.join(', ')}): the agent sends ${CALLS_PER_TURN} calls per turn, so none was left for ${facts.tool}.`,
    fix: 'Let one tool answer more (fewer calls per answer), or say in the description when this tool comes first.',
  };
}

/**
 * Why the agent may not use `tool`: the docs' five checks against Median's
 * endpoints, the route's manifest and the recorded calls. Pure.
 */
export function checkToolUse(facts: ToolUseFacts): ToolUseCheck[] {
  const serving = facts.endpoints?.find((e) => e.tools.some((t) => t.name === facts.tool && t.enabled)) ?? facts.endpoints?.find((e) => e.tools.some((t) => t.name === facts.tool));
  return [checkSynced(facts, serving), checkSwitch(facts.tool, serving), checkDeploy(facts, serving), checkDescription(facts), checkCallsLeft(facts)];
}
