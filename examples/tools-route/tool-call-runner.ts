import { ROUTE_MESSAGES } from '../../src/median/messages.js';
import type { ToolCall } from '../../src/median/protocol.js';
import type { Logger } from '../../src/shared/logger.js';
import type { RouteAnswer } from './connect-endpoint.js';
import { createIdempotencyCache } from './idempotency-cache.js';
import { validateInput } from './input-validation.js';
import type { ToolContext, ToolDefinition } from './tool-definition.js';

/**
 * Runs one signed, well-formed tool call `{tool, toolCallId, input, context}` the way
 * `median()` does: 404 unknown_tool, 400 invalid_input, 200 {result}, or 200
 * execution_failed when `execute` throws. A toolCallId seen before gets its
 * first answer back, with `repeat: true` inside an object result.
 */
export interface ToolCallRunnerOptions {
  tools: readonly ToolDefinition[];
  /** How many toolCallIds to remember for repeats. */
  rememberCalls: number;
  logger: Logger;
}

export interface ToolCallRunner {
  run(call: ToolCall, signal: AbortSignal): Promise<RouteAnswer>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorAnswer(status: number, code: string, message: string): RouteAnswer {
  return { status, body: { error: { code, message } } };
}

/** A repeat answers the first result, marked so replays can show idempotency. */
function markRepeat(answer: RouteAnswer): RouteAnswer {
  const body = answer.body;
  if (isObject(body) && isObject(body.result)) return { ...answer, body: { result: { ...body.result, repeat: true } } };
  return answer;
}

async function execute(
  tool: ToolDefinition,
  input: Record<string, unknown>,
  context: ToolContext,
  logger: Logger,
): Promise<RouteAnswer> {
  try {
    const result: unknown = (await tool.execute(input, context)) ?? null;
    JSON.stringify(result); // a result that is not JSON fails here, as the tool's fault
    return { status: 200, body: { result } };
  } catch (error) {
    // The message goes back to the agent; the stack stays on this server.
    logger.error(`Median: the tool "${tool.name}" threw.`, {
      toolCallId: context.toolCallId,
      stack: error instanceof Error ? error.stack : String(error),
    });
    const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
    return errorAnswer(200, 'execution_failed', message);
  }
}

export function createToolCallRunner(options: ToolCallRunnerOptions): ToolCallRunner {
  const toolsByName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const firstAnswers = createIdempotencyCache<RouteAnswer>(options.rememberCalls);

  return {
    async run(call, signal) {
      const tool = toolsByName.get(call.tool);
      if (!tool) return errorAnswer(404, 'unknown_tool', ROUTE_MESSAGES.unknownTool(call.tool));
      const checked = validateInput(tool.input, call.input);
      if (!checked.ok) return errorAnswer(400, 'invalid_input', checked.message);

      const id = call.toolCallId;
      const earlier = id === '' ? undefined : firstAnswers.get(id);
      if (earlier) return markRepeat(await earlier);

      const context: ToolContext = {
        toolCallId: id,
        conversationId: call.context.conversationId,
        risk: call.context.risk,
        visitor: call.context.visitor,
        approvedBy: call.context.approvedBy,
        signal,
      };
      const answer = execute(tool, checked.value, context, options.logger);
      if (id === '') return answer;
      firstAnswers.remember(id, answer);
      const settled = await answer;
      // The caller hung up before the tool finished: let a retry run it again.
      if (signal.aborted) firstAnswers.forget(id);
      return settled;
    },
  };
}
