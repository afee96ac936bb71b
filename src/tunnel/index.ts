// src/tunnel: opening and keeping the public tunnel to the proxy (every provider behind one interface: timeouts, backoff, liveness).
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export type { TunnelProvider, TunnelConnection, TunnelOpenRequest, LocaltunnelProviderOptions } from './tunnel-provider.js';
export { createLocaltunnelProvider } from './localtunnel-client.js';
export { createNoTunnelProvider } from './no-tunnel-provider.js';
export { startTunnel, type StartTunnelOptions, type TunnelHandle } from './start-tunnel.js';
export type { TunnelEvent, TunnelEventType, TunnelEventOf, TunnelDownReason } from './tunnel-events.js';
export {
  HEALTH_PATH,
  HEALTH_MARKER_HEADER,
  judgeHealthProbe,
  canConnect,
  PROBE_TIMED_OUT,
  nextProbeStrikes,
  createFetchHealthProbe,
  isProxyHealth,
  type HealthProbe,
  type HealthProbeResult,
  type HealthVerdict,
} from './health-probe.js';
export { createPublicFetch, findPublicRoute, type PublicFetch, type PublicFetchInit, type PublicReachOptions, type PublicRoute } from './public-url-fetch.js';
export { probeOnce } from './probe-once.js';
export { deriveSubdomain } from './derive-subdomain.js';
export { registrationDomains, registrationUrlProblem, isSubdomainOf } from './registration-domains.js';
export { createTunnelBackoff, type TunnelBackoff, reconnectDelayMs, reopenDelayMs, DEFAULT_BACKOFF, DEFAULT_QUICK_REOPEN_MS, type BackoffOptions, type ReopenScheduleOptions } from './reconnect-delay.js';
export { TUNNEL_ERROR_CODES, isFinalTunnelError, type TunnelErrorCode } from './tunnel-errors.js';
export { createCloudflaredProvider, type CloudflaredProviderOptions } from './cloudflared-provider.js';
export { readCloudflaredLine, quickTunnelHostname, readyConnections } from './cloudflared-output.js';
export { createSshProvider, type SshProviderOptions } from './ssh-provider.js';
export { readSshLine } from './ssh-output.js';
export { createNgrokProvider, type NgrokProviderOptions } from './ngrok-provider.js';
export { createNgrokAgentProvider, listAgentEndpoints, pickEndpoint, type NgrokAgentProviderOptions } from './ngrok-agent-provider.js';
export { readAgentEndpoints, localPortOf, type AgentEndpoint } from './ngrok-agent-api.js';
export { loadNgrokLibrary, type NgrokLibrary, type NgrokListener, type NgrokForwardOptions } from './ngrok-library.js';
export { ngrokError } from './ngrok-errors.js';
export { recognizeLocaltunnelPage, LOCALTUNNEL_PAGE_ADVICE, type LocaltunnelPage } from './localtunnel-pages.js';
