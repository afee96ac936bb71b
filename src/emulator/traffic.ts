import type { Visitor } from '../median/index.js';
import type { Logger } from '../shared/index.js';
import type { EndpointRegistry } from './endpoint-registry.js';
import { sampleInput, type Random } from './sample-input.js';
import { newConversationId, type CallToolRequest, type EmulatedCall } from './tool-caller.js';

export interface TrafficOptions {
  /** One call every `intervalMs`. */
  intervalMs: number;
  signal?: AbortSignal;
  onCall?: (call: EmulatedCall) => void;
  /** Calls in flight at most; a tick past it is skipped. Default 4. */
  maxInFlight?: number;
}

export interface Traffic {
  stop(): void;
}

interface TrafficDeps {
  registry: EndpointRegistry;
  callTool: (request: CallToolRequest) => Promise<EmulatedCall>;
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
 * Plausible agent traffic: every `intervalMs`, a call to a random switched-on
 * tool of a synced endpoint, with an input built from its schema, a random
 * visitor, and a conversation that sometimes carries on. Stops on stop(), on
 * the signal, or when the emulator closes.
 */
export function startTraffic(options: TrafficOptions, deps: TrafficDeps): Traffic {
  const random = deps.random ?? Math.random;
  const maxInFlight = options.maxInFlight ?? 4;
  let inFlight = 0;
  let stopped = false;
  let conversationId = newConversationId();

  const timer = setInterval(tick, Math.max(1, options.intervalMs));
  timer.unref();
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    options.signal?.removeEventListener('abort', stop);
    deps.closed.removeEventListener('abort', stop);
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  deps.closed.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted || deps.closed.aborted) stop();

  function tick(): void {
    if (stopped || inFlight >= maxInFlight) return;
    const choices = deps.registry
      .records()
      .flatMap((r) => r.manifestTools.filter((t) => r.tools.some((s) => s.name === t.name && s.enabled)).map((tool) => ({ record: r, tool })));
    if (choices.length === 0) return;
    const { record, tool } = choices[Math.floor(random() * choices.length) % choices.length]!;
    if (random() < 0.4) conversationId = newConversationId();
    inFlight++;
    deps
      .callTool({
        tool: tool.name,
        endpointUrl: record.url,
        input: sampleInput(tool.inputSchema, random),
        visitor: VISITORS[Math.floor(random() * VISITORS.length) % VISITORS.length]!,
        conversationId,
      })
      .then(
        (call) => {
          if (!stopped) options.onCall?.(call);
        },
        (error: unknown) => deps.logger.debug('emulator: traffic call not made', { tool: tool.name, error: String(error) }),
      )
      .finally(() => {
        inFlight--;
      });
  }

  return { stop };
}
