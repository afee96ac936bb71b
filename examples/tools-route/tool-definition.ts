import type { Risk, Visitor } from '../../src/median/protocol.js';
import type { FieldMap, InputOf } from './field-builder.js';

/** What a tool's `execute` learns about the call besides its input. */
export interface ToolContext {
  toolCallId: string;
  conversationId: string;
  risk: Risk;
  /** Authorize on `visitor.externalId`, and only when `visitor.verified` is true. */
  visitor: Visitor;
  /** Who let the call run, on approved and teammate-run calls. */
  approvedBy: string | undefined;
  /** Aborted when the caller hung up (Median gives up after 10 s) or the server closes. */
  signal: AbortSignal;
}

/** One tool on the route: what the manifest says about it, and what runs. */
export interface ToolDefinition<F extends FieldMap = FieldMap> {
  /** A letter, then letters, numbers and underscores, up to 64 characters. */
  name: string;
  /** One sentence: the agent picks tools by their description. */
  description: string;
  risk: Risk;
  /** The input fields, built with `p`. */
  input: F;
  /** Returns the result (any JSON), a refusal (`{ok: false, reason, detail}`), or throws. */
  execute(input: InputOf<F>, context: ToolContext): unknown;
}

/** Identity function that infers `execute`'s input type from `input`. */
export function defineTool<F extends FieldMap>(tool: ToolDefinition<F>): ToolDefinition<F> {
  return tool;
}
