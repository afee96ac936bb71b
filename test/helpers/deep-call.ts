import type { SpawnedCli } from './cli-harness.js';
import { isEvent, type E2eWorld } from './e2e-world.js';
import { requestVia, type TunnelAnswer } from './use-tunnel-server.js';

/** How deep the attacker's input nests: far past what any recursive reader's stack holds. */
export const DEEP_DEPTH = 200_000;

/** A tool call whose `input.orderNumber` nests DEEP_DEPTH arrays deep; `JSON.parse` takes it. */
export function deepToolCallBody(toolCallId = 'call_deep'): string {
  return `{"tool":"orderStatus","toolCallId":"${toolCallId}","input":{"orderNumber":${'['.repeat(DEEP_DEPTH)}${']'.repeat(DEEP_DEPTH)}},"context":{"conversationId":"conv_deep","risk":"low","visitor":{"verified":false}}}`;
}

/**
 * Sends the deep call from the internet's side (to the daemon's tunnel URL, from its `--json` events or given): over real HTTP to the
 * loopback tunnel server, as `https://<the daemon's tunnel host>/api/median`,
 * which forwards it to the daemon's proxy. Unsigned, so the route answers 401.
 */
export async function sendDeepCall(world: E2eWorld, daemon: SpawnedCli | { tunnelUrl: string }, toolCallId = 'call_deep'): Promise<TunnelAnswer> {
  const url = 'tunnelUrl' in daemon ? daemon.tunnelUrl : (daemon.events().find((e) => isEvent(e, 'tunnel', { state: 'open' }))!.url as string);
  const publicHost = new URL(url).host;
  return requestVia(world.tunnelServer, publicHost, { method: 'POST', path: '/api/median', headers: { 'content-type': 'application/json' }, body: deepToolCallBody(toolCallId) });
}
