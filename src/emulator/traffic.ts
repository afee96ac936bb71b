import type { Visitor } from '../median/index.js';
import type { Logger } from '../shared/index.js';
import type { AgentCall, AgentCallOutcome } from './agent-calls.js';
import type { ApprovalRequest } from './approvals.js';
import type { Conversation } from './conversations.js';
import { sampleInput, type Random } from './sample-input.js';
import type { EmulatedCall } from './tool-caller.js';
import type { EndpointRegistry } from './endpoint-registry.js';

export interface TrafficOptions {
  /** One call every `intervalMs`. */
  intervalMs: number;
  signal?: AbortSignal;
  /** Each call that ran: the agent's own, and approved ones once they ran. */
  onCall?: (call: EmulatedCall) => void;
  /** A `reviewed`/`high` call held for a decision. */
  onApproval?: (approval: ApprovalRequest) => void;
  /** A call the agent did not send (the turn's 3 calls were used). */
  onNotSent?: (outcome: AgentCallOutcome) => void;
  /** Calls in flight at most; a tick past it is skipped. Default 4. */
  maxInFlight?: number;
}

export interface Traffic {
  stop(): void;
}

interface TrafficDeps {
  registry: EndpointRegistry;
  startConversation: (options: { visitor: Visitor }) => Promise<Conversation>;
  newTurn: (id: string) => unknown;
  agentCall: AgentCall;
  /** Approved runs as they end. */
  onRun: (listener: (call: EmulatedCall) => void) => () => void;
  logger: Logger;
  random?: Random;
  /** Stops the traffic when the emulator closes. */
  closed: AbortSignal;
}

const VISITORS: readonly Visitor[] = [
  { verified: true, externalId: 'user_1042', email: 'ada@example.com', name: 'Ada Lovelace' },
  { verified: true, externalId: 'user_2077', email: 'grace@example.com', name: 'Grace Hopper' },
  { verified: false, email: 'alan@example.com', name: 'Alan' },
  { verified: false, name: 'Katherine' },
  { verified: false },
];

/**
 * Plausible agent traffic, played as conversations: every `intervalMs`, the
 * agent calls a random switched-on tool of its conversation with an input
 * built from its schema. A conversation sometimes carries on (in the same
 * turn, or a new customer message) and sometimes a new one starts (every
 * endpoint syncs first). Each risk runs as Median runs it, and a turn's
 * fourth call is not sent. Stops on stop(), on the signal, or when the
 * emulator closes.
 */
export function startTraffic(options: TrafficOptions, deps: TrafficDeps): Traffic {
  const random = deps.random ?? Math.random;
  const maxInFlight = options.maxInFlight ?? 4;
  const mine = new Set<string>();
  let inFlight = 0;
  let stopped = false;
  let conversation: Promise<Conversation> | undefined;

  const timer = setInterval(tick, Math.max(1, options.intervalMs));
  timer.unref();
  const unsubscribe = deps.onRun((call) => {
    if (!stopped && mine.has(call.toolCallId)) {
      mine.delete(call.toolCallId);
      options.onCall?.(call);
    }
  });
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    unsubscribe();
    options.signal?.removeEventListener('abort', stop);
    deps.closed.removeEventListener('abort', stop);
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  deps.closed.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted || deps.closed.aborted) stop();

  function hasTools(): boolean {
    return deps.registry.records().some((r) => r.tools.some((t) => t.enabled) && r.manifestTools.length > 0);
  }

  async function play(): Promise<void> {
    const roll = random();
    if (!conversation || roll < 0.3) {
      conversation = deps.startConversation({ visitor: VISITORS[Math.floor(random() * VISITORS.length) % VISITORS.length]! });
    } else if (roll < 0.55) {
      deps.newTurn((await conversation).id);
    }
    const current = await conversation;
    const tools = current.tools.filter((t) => deps.registry.records().some((r) => r.id === t.endpointId && r.tools.some((s) => s.name === t.name && s.enabled)));
    if (tools.length === 0) {
      conversation = undefined;
      return;
    }
    const tool = tools[Math.floor(random() * tools.length) % tools.length]!;
    const record = deps.registry.records().find((r) => r.id === tool.endpointId);
    const schema = record?.manifestTools.find((t) => t.name === tool.name)?.inputSchema;
    const outcome = await deps.agentCall(current.id, { tool: tool.name, ...(schema ? { input: sampleInput(schema, random) } : {}) });
    if (stopped) return;
    if (outcome.call) options.onCall?.(outcome.call);
    else if (outcome.approval) {
      mine.add(outcome.approval.id);
      options.onApproval?.(outcome.approval);
    } else options.onNotSent?.(outcome);
  }

  function tick(): void {
    if (stopped || inFlight >= maxInFlight || !hasTools()) return;
    inFlight++;
    play()
      .catch((error: unknown) => {
        // The conversation may have a tool switched off since it started: the next tick starts over.
        conversation = undefined;
        deps.logger.debug('emulator: traffic call not made', { error: String(error) });
      })
      .finally(() => {
        inFlight--;
      });
  }

  return { stop };
}
