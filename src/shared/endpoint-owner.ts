/**
 * Whose an endpoint of the organisation is, as far as median-dev can tell
 * (src/endpoints decides it; the CLI and the TUI show it):
 *
 * - `this-project`: its id or URL is in this project's data dir (its own history of tools URLs);
 * - `dev-tunnel`: on a tunnel service's domain (localtunnel, ngrok, Cloudflare quick tunnels, …),
 *   or on a local or private address the cloud cannot sync, and not in this project's history:
 *   most likely a teammate's laptop;
 * - `production`: anything else — production or a preview deployment, which real customers'
 *   conversations may depend on.
 */
export type EndpointOwner = 'this-project' | 'dev-tunnel' | 'production';

/** What `endpoints`, `doctor`, the clash message and the TUI call each class. */
export const OWNER_LABELS: Readonly<Record<EndpointOwner, string>> = Object.freeze({
  'this-project': 'this project',
  'dev-tunnel': 'another dev tunnel (likely a teammate’s)',
  production: 'production or a preview',
});
