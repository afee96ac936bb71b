import { isMedianDevError } from '../shared/index.js';
import { ApiError } from './api-error.js';
import type { Approvals, ApprovedRunFault } from './approvals.js';
import { checkEndpointUrl } from './endpoint-url-rules.js';
import type { EndpointRegistry } from './endpoint-registry.js';
import { heldTool } from './held-endpoint.js';
import { sampleInput } from './sample-input.js';
import type { ToolCaller } from './tool-caller.js';

type Json = Record<string, unknown>;

/** The prefix of OUR extensions for tests and the demo: not Median's API. */
export const EMULATOR_PREFIX = '/v1/emulator';

const FAULTS: readonly ApprovedRunFault[] = ['no-result', 'request-failed'];

/**
 * OUR extensions of the emulated API, authenticated like /v1 (any key of the org):
 *
 * - `POST /v1/emulator/endpoints {url, tools: [name | ManifestTool]}` → 201 `{endpoint}` once synced:
 *   an endpoint the emulator answers for itself (production, a teammate's tunnel).
 * - `POST /v1/emulator/approvals {tool, input?, conversationId?}` → 201 `{approval}`: a reviewed/high call waiting.
 * - `POST /v1/emulator/approvals/{id}/approve {approvedBy?, fault?: "no-result"|"request-failed"}` → 200 `{call}`.
 * - `POST /v1/emulator/calls {tool, input?, endpoint?, conversationId?}` → 200 `{call}`: the cloud calls a tool
 *   now, signed like the agent's calls, on the endpoint that has it on (`endpoint`: an id or a URL); without
 *   `input`, a plausible one made from the tool's input schema.
 */
export function createEmulatorRoutes(options: { registry: EndpointRegistry; approvals: Approvals; caller: Pick<ToolCaller, 'callTool'> }) {
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
    const input =
      (body.input as Record<string, unknown> | undefined) ?? sampleInput(options.registry.findTool(tool, endpointUrl).tool.inputSchema);
    const result = await coded(() =>
      options.caller.callTool({
        tool,
        input,
        ...(endpointUrl === undefined ? {} : { endpointUrl }),
        ...(typeof body.conversationId === 'string' ? { conversationId: body.conversationId } : {}),
      }),
    );
    return { status: 200, body: { call: result } };
  }

  async function coded<T>(run: () => Promise<T> | T): Promise<T> {
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

  return {
    async handle(method: string, path: string, body: Json, callerKey: string): Promise<{ status: number; body: unknown }> {
      const rest = path.slice(EMULATOR_PREFIX.length);
      if (method !== 'POST') throw new ApiError(405, 'method_not_allowed', `${path} answers POST, not ${method}.`, { allow: 'POST' });
      if (rest === '/endpoints') return hold(body, callerKey);
      if (rest === '/calls') return call(body);
      if (rest === '/approvals') {
        if (typeof body.tool !== 'string') throw new ApiError(400, 'invalid_body', 'Send {"tool": "name", "input": {…}}.');
        const tool = body.tool;
        const approval = await coded(() =>
          options.approvals.request({
            tool,
            ...(typeof body.input === 'object' && body.input !== null ? { input: body.input as Record<string, unknown> } : {}),
            ...(typeof body.conversationId === 'string' ? { conversationId: body.conversationId } : {}),
          }),
        );
        return { status: 201, body: { approval } };
      }
      const approve = /^\/approvals\/([^/]+)\/approve$/.exec(rest);
      if (approve) {
        const fault = body.fault;
        if (fault !== undefined && !FAULTS.includes(fault as ApprovedRunFault)) {
          throw new ApiError(400, 'invalid_body', `"fault" is one of: ${FAULTS.join(', ')}.`);
        }
        const call = await coded(() =>
          options.approvals.approve(decodeURIComponent(approve[1]!), {
            ...(typeof body.approvedBy === 'string' ? { approvedBy: body.approvedBy } : {}),
            ...(fault === undefined ? {} : { fault: fault as ApprovedRunFault }),
          }),
        );
        return { status: 200, body: { call } };
      }
      throw new ApiError(404, 'not_found', `No emulator route answers ${method} ${path}.`);
    },
  };
}

export type EmulatorRoutes = ReturnType<typeof createEmulatorRoutes>;
