import type { Endpoint, ManifestTool, Visitor } from '../median/index.js';
import { MedianDevError, type Clock } from '../shared/index.js';
import type { EmulatorLimits } from './emulator-limits.js';
import type { EndpointRecord, EndpointRegistry } from './endpoint-registry.js';
import { newConversationId } from './tool-caller.js';

/** One line of a conversation's thread, as a teammate reads it. */
export interface ThreadEntry {
  at: string;
  kind: 'ran' | 'did-not-run' | 'waiting' | 'declined' | 'expired' | 'not-sent' | 'note';
  text: string;
  toolCallId?: string;
}

/** One endpoint's sync before a new conversation's first reply. */
export interface FirstReplySync {
  endpointId: string;
  url: string;
  status: Endpoint['status'];
  error: string | null;
  durationMs: number;
}

export interface Conversation {
  id: string;
  visitor: Visitor;
  startedAt: string;
  state: 'open' | 'ended';
  isArchived: boolean;
  /** An approved call failed in it: it turns unread. */
  isUnread: boolean;
  /** Its tool set: every endpoint's last sync when it started ("Open conversations keep the last sync"). */
  tools: Array<{ name: string; risk: ManifestTool['risk']; endpointId: string; endpointUrl: string }>;
  /** "Every endpoint syncs before each new conversation's first reply": how long that took, per endpoint. */
  firstReply: { waitedMs: number; syncs: FirstReplySync[] };
  /** Calls the agent made in each turn, oldest turn first. */
  turns: number[];
  /** Tool call ids running now (sent and not reported). */
  running: string[];
  thread: ThreadEntry[];
}

interface Held extends Conversation {
  /** The copy of each tool's manifest entry it started with. */
  copies: Map<string, { endpointId: string; tool: ManifestTool }>;
}

function publicView(held: Held): Conversation {
  const { copies: _copies, ...rest } = held;
  return structuredClone(rest);
}

/**
 * The organisation's conversations: each keeps the tool set of the syncs
 * that ran before its first reply, counts the agent's calls per turn and the
 * tools running in it, and holds its thread.
 */
export function createConversations(options: { registry: EndpointRegistry; limits: EmulatorLimits; clock: Clock }) {
  const { registry, clock } = options;
  const conversations = new Map<string, Held>();
  const iso = (): string => new Date(clock.now()).toISOString();

  function require(id: string): Held {
    const held = conversations.get(id);
    if (!held) throw new MedianDevError('conversation_not_found', `No conversation ${id} in this emulator.`, { details: { status: 404 } });
    return held;
  }

  /** Every endpoint syncs first; the conversation then keeps what they synced (or their last good set). */
  async function start(start: { id?: string; visitor?: Visitor } = {}): Promise<Conversation> {
    const began = clock.now();
    const records = registry.records();
    const syncs = await Promise.all(
      records.map(async (record): Promise<FirstReplySync> => {
        const from = performance.now();
        const endpoint = await registry.syncNow(record);
        return { endpointId: endpoint.id, url: endpoint.url, status: endpoint.status, error: endpoint.error, durationMs: Math.round(performance.now() - from) };
      }),
    );
    const copies = new Map<string, { endpointId: string; tool: ManifestTool }>();
    for (const record of registry.records()) {
      for (const tool of switchedOn(record)) if (!copies.has(tool.name)) copies.set(tool.name, { endpointId: record.id, tool });
    }
    const held: Held = {
      id: start.id ?? newConversationId(),
      visitor: start.visitor ?? { verified: false },
      startedAt: new Date(began).toISOString(),
      state: 'open',
      isArchived: false,
      isUnread: false,
      tools: [...copies.values()].map(({ endpointId, tool }) => ({
        name: tool.name,
        risk: tool.risk,
        endpointId,
        endpointUrl: records.find((r) => r.id === endpointId)?.url ?? '',
      })),
      firstReply: { waitedMs: Math.max(0, ...syncs.map((s) => s.durationMs)), syncs },
      turns: [0],
      running: [],
      thread: [],
      copies,
    };
    conversations.set(held.id, held);
    return publicView(held);
  }

  return {
    start,
    get: (id: string): Conversation => publicView(require(id)),
    list: (): Conversation[] => [...conversations.values()].map(publicView),
    has: (id: string): boolean => conversations.has(id),
    /** The manifest entry this conversation holds for `tool` (its last sync), if any. */
    copyOf(id: string, tool: string): { endpointId: string; tool: ManifestTool } | undefined {
      return require(id).copies.get(tool);
    },
    visitorOf: (id: string): Visitor => ({ ...require(id).visitor }),
    /** A new customer message: a new turn. */
    newTurn(id: string): Conversation {
      const held = require(id);
      held.turns.push(0);
      return publicView(held);
    },
    /** Takes one of the turn's calls, or says the turn has none left. */
    takeTurnCall(id: string): boolean {
      const held = require(id);
      const last = held.turns.length - 1;
      if ((held.turns[last] ?? 0) >= options.limits.callsPerTurn) return false;
      held.turns[last] = (held.turns[last] ?? 0) + 1;
      return true;
    },
    isOpen: (id: string): boolean => require(id).state === 'open',
    isArchived: (id: string): boolean => require(id).isArchived,
    runningCount: (id: string): number => require(id).running.length,
    startRunning(id: string, toolCallId: string): void {
      require(id).running.push(toolCallId);
    },
    stopRunning(id: string, toolCallId: string): void {
      const held = conversations.get(id);
      if (held) held.running = held.running.filter((r) => r !== toolCallId);
    },
    note(id: string, entry: Omit<ThreadEntry, 'at'>): void {
      const held = conversations.get(id);
      if (!held) return;
      held.thread.push({ at: iso(), ...entry });
      if (entry.kind === 'did-not-run') held.isUnread = true;
    },
    /** The conversation ends (its pending approvals expire: the caller does that). */
    end(id: string): Conversation {
      const held = require(id);
      held.state = 'ended';
      return publicView(held);
    },
    setArchived(id: string, isArchived: boolean): Conversation {
      const held = require(id);
      held.isArchived = isArchived;
      return publicView(held);
    },
    markRead(id: string): Conversation {
      const held = require(id);
      held.isUnread = false;
      return publicView(held);
    },
  };
}

function switchedOn(record: EndpointRecord): ManifestTool[] {
  return record.manifestTools.filter((t) => record.tools.some((s) => s.name === t.name && s.enabled));
}

export type Conversations = ReturnType<typeof createConversations>;
