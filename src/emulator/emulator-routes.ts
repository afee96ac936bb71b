import { ApiError } from './api-error.js';
import type { Approvals } from './approvals.js';
import { asApiAnswer, type ConversationRoutes } from './conversation-routes.js';
import { checkEndpointUrl } from './endpoint-url-rules.js';
import type { EndpointRegistry } from './endpoint-registry.js';
import { heldTool } from './held-endpoint.js';
import { sampleInput } from './sample-input.js';
import { needsApproval, type ToolCaller } from './tool-caller.js';

type Json = Record<string, unknown>;

/** The prefix of OUR extensions for tests and the demo: not Median's API. */
export const EMULATOR_PREFIX = '/v1/emulator';

/**
 * OUR extensions of the emulated API, authenticated like /v1 (any key of the org):
 *
 * - `POST /v1/emulator/endpoints {url, tools: [name | ManifestTool]}` → 201 `{endpoint}` once synced:
 *   an endpoint the emulator answers for itself (production, a teammate's tunnel).
 * - `POST /v1/emulator/approvals {tool, input?, conversationId?}` → 201 `{approval}`: a reviewed/high call waiting.
 * - `POST /v1/emulator/calls {tool, input?, endpoint?, conversationId?}` → 200 `{call}`: the cloud calls a
 *   `low`/`medium` tool now, signed like the agent's calls, on the endpoint that has it on (`endpoint`: an id
 *   or a URL); without `input`, a plausible one made from the tool's input schema. A `reviewed`/`high` tool
 *   answers 202 `{approval}`: held for the reviewer or a teammate, as Median runs it.
 * - conversations, approvals' decisions, teammate runs and keys: conversation-routes.ts.
 */
export function createEmulatorRoutes(options: { registry: EndpointRegistry; approvals: Approvals; caller: Pick<ToolCaller, 'callTool'>; more: ConversationRoutes }) {
  async function hold(body: Json, callerKey: string): Promise<{ status: number; body: unknown }> {
    const url = checkEndpointUrl(body.url);
    const tools = body.tools;
    if (!Array.isArray(tools) || tools.some((t) => typeof t !== 'string' && (typeof t !== 'object' || t === null))) {
      throw new ApiError(400, 'invalid_body', 'Send {"url": "https://…", "tools": ["toolName", …]} (names or manifest entries).');
    }
    const { synced } = options.registry.hold(url, tools.map((t) => heldTool(t as Parameters<typeof heldTool>[0])), callerKey);
    return { status: 201, body: { endpoint: await synced } };
  }

  async function call(body: Json): Promise<{ status: number; body: unknown }> {
    if (typeof body.tool !== 'string' || body.tool === '') throw new ApiError(400, 'invalid_body', 'Send {"tool": "name", "input": {…}, "endpoint": "tep_… or its URL"}.');
    if (body.input !== undefined && (typeof body.input !== 'object' || body.input === null || Array.isArray(body.input))) {
      throw new ApiError(400, 'invalid_body', '"input" is a JSON object, like {"orderNumber": "A1001"}.');
    }
    if (body.endpoint !== undefined && typeof body.endpoint !== 'string') throw new ApiError(400, 'invalid_body', '"endpoint" is an endpoint id (tep_…) or its URL.');
    const endpointUrl = typeof body.endpoint === 'string' ? (/^https?:/i.test(body.endpoint) ? body.endpoint : options.registry.byId(body.endpoint).url) : undefined;
    const tool = body.tool;
    const found = options.registry.findTool(tool, endpointUrl);
    const input = (body.input as Record<string, unknown> | undefined) ?? sampleInput(found.tool.inputSchema);
    const request = {
      tool,
      input,
      ...(endpointUrl === undefined ? {} : { endpointUrl }),
      ...(typeof body.conversationId === 'string' ? { conversationId: body.conversationId } : {}),
    };
    // As Median runs each risk: reviewed and high wait for a decision, nothing is sent yet.
    if (needsApproval(found.tool.risk)) {
      const approval = await asApiAnswer(() => options.approvals.request(request));
      return { status: 202, body: { approval } };
    }
    const result = await asApiAnswer(() => options.caller.callTool(request));
    const notes = found.tool.risk === 'medium' ? ["The agent asked for the customer's yes first (risk medium)."] : [];
    return { status: 200, body: { call: notes.length > 0 ? { ...result, notes } : result } };
  }

  return {
    async handle(method: string, path: string, body: Json, callerKey: string, query: URLSearchParams = new URLSearchParams(), signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
      const rest = path.slice(EMULATOR_PREFIX.length);
      if (method === 'POST' && rest === '/endpoints') return hold(body, callerKey);
      if (method === 'POST' && rest === '/calls') return call(body);
      if (method === 'POST' && rest === '/approvals') {
        if (typeof body.tool !== 'string') throw new ApiError(400, 'invalid_body', 'Send {"tool": "name", "input": {…}}.');
        const tool = body.tool;
        const approval = await asApiAnswer(() =>
          options.approvals.request({
            tool,
            ...(typeof body.input === 'object' && body.input !== null ? { input: body.input as Record<string, unknown> } : {}),
            ...(typeof body.conversationId === 'string' ? { conversationId: body.conversationId } : {}),
          }),
        );
        return { status: 201, body: { approval } };
      }
      let answered: { status: number; body: unknown } | undefined;
      try {
        answered = await options.more.handle(method, rest, query, body, signal);
      } catch (error) {
        if (error instanceof URIError) answered = undefined; // a malformed %-escape: no route matches it
        else throw error;
      }
      if (answered) return answered;
      if (method !== 'POST' && method !== 'GET') throw new ApiError(405, 'method_not_allowed', `${path} answers GET and POST, not ${method}.`, { allow: 'GET, POST' });
      throw new ApiError(404, 'not_found', `No emulator route answers ${method} ${path}.`);
    },
  };
}

export type EmulatorRoutes = ReturnType<typeof createEmulatorRoutes>;
