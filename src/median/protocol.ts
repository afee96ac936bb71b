/**
 * The route protocol of SPEC §1.2 and tool-endpoint-reference.txt, as types.
 * Parsers that turn raw requests/answers into these live in route-parser.ts.
 */

export const RISKS = ['low', 'medium', 'reviewed', 'high'] as const;
export type Risk = (typeof RISKS)[number];

export interface Visitor {
  verified: boolean;
  externalId?: string;
  email?: string;
  name?: string;
}

export interface ToolCallContext {
  conversationId: string;
  risk: Risk;
  visitor: Visitor;
  approvedBy?: string;
}

export interface ToolCall {
  tool: string;
  toolCallId: string;
  input: Record<string, unknown>;
  context: ToolCallContext;
}

export interface DiagnosticsRequest {
  op: 'diagnostics';
}

/** JSON Schema object as the manifest carries it. */
export interface InputSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties: false;
  [key: string]: unknown;
}

export interface ManifestTool {
  name: string;
  description: string;
  risk: Risk;
  inputSchema: InputSchema;
}

export interface Manifest {
  version: 1;
  tools: ManifestTool[];
}

export interface ConnectAnswer {
  connected: boolean;
  endpoint: string;
  tools: number;
  message: string;
}

/** Every error code a route answers with (tool-endpoint-reference.txt). */
export const ROUTE_ERROR_CODES = [
  'execution_failed',
  'diagnostics_unsupported',
  'invalid_body',
  'unknown_op',
  'invalid_input',
  'missing_signature',
  'malformed_signature',
  'stale_timestamp',
  'invalid_signature',
  'unknown_tool',
  'method_not_allowed',
  'missing_secret',
  'invalid_median_key',
] as const;
export type RouteErrorCode = (typeof ROUTE_ERROR_CODES)[number];

export interface ErrorEnvelope {
  error: { code: string; message: string };
}

export interface ToolResultEnvelope {
  result: unknown;
}

/** The kinds of request that reach a route. */
export type RequestKind = 'tool-call' | 'diagnostics' | 'manifest' | 'connect' | 'other';
