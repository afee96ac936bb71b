import { UserError } from '../shared/errors.js';
import { everyOnClock, systemClock, type Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { getLocalJson } from './local-json.js';
import { readAgentEndpoints, type AgentEndpoint } from './ngrok-agent-api.js';
import { createLostSignal, signalledConnection } from './lost-signal.js';
import { TUNNEL_ERROR_CODES, openAbortedError } from './tunnel-errors.js';
import type { TunnelConnection, TunnelProvider } from './tunnel-provider.js';

export interface NgrokAgentProviderOptions {
  /** The agent's API origin, default http://127.0.0.1:4040. */
  apiUrl: string;
  /** The dev server's port: an agent forwarding there bypasses the recorder, which is said. */
  targetPort?: number;
  logger?: Logger;
  /** How often an open tunnel's endpoint is looked at, to follow a change. Default 5000 ms. */
  followMs?: number;
  /** The follow-up looks run on it (tests drive it); real time when left out. */
  clock?: Clock;
}

/** The endpoints a running agent serves, or the coded reason there are none to use. */
export async function listAgentEndpoints(apiUrl: string, signal?: AbortSignal): Promise<AgentEndpoint[]> {
  for (const path of ['/api/endpoints', '/api/tunnels']) {
    const answer = await getLocalJson(`${apiUrl}${path}`, { timeoutMs: 2_000, ...(signal ? { signal } : {}) });
    if (answer.kind === 'unreachable') {
      throw new UserError(TUNNEL_ERROR_CODES.ngrokAgentUnreachable, `No ngrok agent answers at ${apiUrl} (${answer.errorCode}).`, {
        hint: 'Start it in another terminal with `ngrok http 4141` (the proxy’s port), or pass --ngrok-api when its web_addr is elsewhere.',
      });
    }
    // Older agents have no /api/endpoints (404): ask /api/tunnels.
    if (answer.status === 404) continue;
    const endpoints = answer.status === 200 ? readAgentEndpoints(answer.body) : undefined;
    if (endpoints) return endpoints;
  }
  throw new UserError(TUNNEL_ERROR_CODES.ngrokAgentUnreachable, `${apiUrl} does not answer like an ngrok agent's API.`, {
    hint: 'Pass --ngrok-api with the address of the agent’s web interface (web_addr in its config).',
  });
}

/**
 * `--tunnel ngrok --attach`: an ngrok agent the user already runs. Its API
 * names the https endpoint that forwards to the proxy's port; that is the
 * tunnel. While open, the endpoint is looked at every `followMs`: one that
 * changed or went away is a lost tunnel, and the reopen takes the new one
 * (a hostname change when the URL differs). An agent forwarding to the dev
 * server instead is refused with a clear error: calls would bypass the recorder.
 */
export function createNgrokAgentProvider(options: NgrokAgentProviderOptions): TunnelProvider {
  const logger = options.logger ?? silentLogger;
  const followMs = options.followMs ?? 5_000;
  const clock = options.clock ?? systemClock;
  return {
    name: 'ngrok',
    async open(request, { signal } = {}) {
      if (signal?.aborted) throw openAbortedError();
      const endpoint = pickEndpoint(await listAgentEndpoints(options.apiUrl, signal), request.localPort, options);
      logger.debug('ngrok agent endpoint', { url: endpoint.url, upstream: endpoint.upstream });
      return followedConnection(endpoint, request.localPort);
    },
  };

  function followedConnection(endpoint: AgentEndpoint, localPort: number): TunnelConnection {
    const lost = createLostSignal();
    const lose = (reason: string): void => {
      timer.cancel();
      lost.lose(reason);
    };
    let isLooking = false;
    const timer = everyOnClock(clock, followMs, () => {
      if (isLooking) return;
      isLooking = true;
      listAgentEndpoints(options.apiUrl)
        .then((endpoints) => {
          const now = endpoints.find((candidate) => candidate.upstreamPort === localPort);
          if (!now) lose('the ngrok agent no longer forwards to the proxy');
          else if (now.url !== endpoint.url) lose(`the ngrok agent now serves ${now.url}`);
        })
        .catch((error: unknown) => lose(`the ngrok agent stopped answering (${(error as { code?: string }).code ?? String(error)})`))
        .finally(() => (isLooking = false));
    });
    return signalledConnection(endpoint.url, lost, async () => timer.cancel());
  }
}

/** The https endpoint forwarding to the proxy; else the coded reason (none, or one to the dev server). */
export function pickEndpoint(endpoints: readonly AgentEndpoint[], proxyPort: number, options: { apiUrl: string; targetPort?: number }): AgentEndpoint {
  const ours = endpoints.find((endpoint) => endpoint.upstreamPort === proxyPort);
  if (ours) return ours;
  const bypass = options.targetPort === undefined ? undefined : endpoints.find((endpoint) => endpoint.upstreamPort === options.targetPort);
  if (bypass) {
    throw new UserError(
      TUNNEL_ERROR_CODES.ngrokAgentBypassesRecorder,
      `The ngrok agent forwards ${bypass.url} to the dev server (${bypass.upstream}), not to median-dev's proxy: calls would bypass the recorder and the signature check.`,
      { hint: `Restart it as \`ngrok http ${proxyPort}\` (the proxy's port); median-dev forwards to the dev server itself.` },
    );
  }
  throw new UserError(
    TUNNEL_ERROR_CODES.ngrokAgentNoEndpoint,
    `The ngrok agent at ${options.apiUrl} has no https endpoint forwarding to the proxy's port ${proxyPort}${endpoints.length ? ` (it serves ${endpoints.map((e) => `${e.url} → ${e.upstream}`).join(', ')})` : ''}.`,
    { hint: `Start one with \`ngrok http ${proxyPort}\` (add --url <your static domain> to keep the hostname).` },
  );
}
