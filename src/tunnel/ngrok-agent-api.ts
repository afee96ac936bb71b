/**
 * The ngrok agent's local API (`http://127.0.0.1:4040/api`, no auth), read in
 * both of its shapes:
 * - `GET /api/tunnels` (every v2/v3 agent):
 *   `{"tunnels":[{"name":"command_line","uri":"/api/tunnels/command_line","public_url":"https://d95211d2.ngrok.app","proto":"https","config":{"addr":"localhost:80","inspect":true},…}],"uri":"/api/tunnels"}`;
 *   `config.addr` is `localhost:80`, `http://localhost:80` or `80`;
 * - `GET /api/endpoints` (v3 agents with `endpoints:` config): `{"endpoints":[{"id":"…","name":"…","url":"https://x.ngrok-free.dev","upstream":{"url":"http://localhost:4141","protocol":"http1"},…}]}`,
 *   the fields of the agent config v3 endpoint definition (`url`, `upstream.url`).
 */
export interface AgentEndpoint {
  /** Public origin, no trailing slash. */
  url: string;
  /** Where the agent forwards, as it was given. */
  upstream: string;
  /** The upstream's port, when it is on this machine. */
  upstreamPort: number | undefined;
}

export function readAgentEndpoints(body: unknown): AgentEndpoint[] | undefined {
  const doc = body as { endpoints?: unknown; tunnels?: unknown } | null;
  if (!doc || typeof doc !== 'object') return undefined;
  if (Array.isArray(doc.endpoints)) {
    return doc.endpoints.flatMap((item: { url?: unknown; upstream?: { url?: unknown } }) =>
      endpointOf(item?.url, item?.upstream?.url),
    );
  }
  if (Array.isArray(doc.tunnels)) {
    return doc.tunnels.flatMap((item: { public_url?: unknown; config?: { addr?: unknown } }) => endpointOf(item?.public_url, item?.config?.addr));
  }
  return undefined;
}

function endpointOf(url: unknown, upstream: unknown): AgentEndpoint[] {
  if (typeof url !== 'string' || !url.startsWith('https://')) return [];
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return []; // not a URL: not an endpoint we could use
  }
  const upstreamText = typeof upstream === 'string' ? upstream : typeof upstream === 'number' ? String(upstream) : '';
  return [{ url: origin, upstream: upstreamText, upstreamPort: localPortOf(upstreamText) }];
}

/** `4141`, `localhost:4141`, `127.0.0.1:4141`, `http://localhost:4141`, `[::1]:4141` → 4141; another host → undefined. */
export function localPortOf(upstream: string): number | undefined {
  if (/^\d{1,5}$/.test(upstream)) return Number(upstream);
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(upstream) ? upstream : `http://${upstream}`);
  } catch {
    return undefined;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!['localhost', '127.0.0.1', '::1', '0.0.0.0'].includes(host)) return undefined;
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}
