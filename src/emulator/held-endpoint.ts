import type { ManifestTool, SyncFetchOutcome } from '../median/index.js';
import type { OutboundResult } from './outbound-request.js';

/**
 * Endpoints the emulator answers for itself: the organisation's production
 * deployment, or a teammate's tunnel. Nothing listens at their URLs (they are
 * https://acme.example/…, a *.loca.lt of someone else's laptop); the emulator
 * holds their manifest, so their syncs pass the same rules as any other, and
 * answers calls to their tools with a plain result.
 */
export interface HeldEndpointSpec {
  url: string;
  /** Tool names (each a low-risk tool without fields), or whole manifest entries. */
  tools: ReadonlyArray<string | ManifestTool>;
}

export function heldTool(tool: string | ManifestTool): ManifestTool {
  if (typeof tool !== 'string') return tool;
  return {
    name: tool,
    description: `${tool}, served by an endpoint the emulator holds.`,
    risk: 'low',
    inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
  };
}

/** What a sync's signed GET of a held endpoint gets: its manifest, as the route would serve it. */
export function heldManifestAnswer(tools: readonly ManifestTool[]): SyncFetchOutcome {
  return {
    kind: 'answer',
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: new TextEncoder().encode(JSON.stringify({ version: 1, tools })),
  };
}

/** What a call to a held endpoint's tool gets: a result naming who answered. */
export function heldCallAnswer(url: string, tool: string): OutboundResult {
  return {
    kind: 'answer',
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ result: { answeredBy: url, tool, note: 'Answered by an endpoint the emulator holds.' } })),
    durationMs: 0,
  };
}
