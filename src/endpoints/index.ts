export { createEndpointKeeper, type EndpointKeeper, type EndpointKeeperOptions, type RouteConnectOutcome } from './endpoint-keeper.js';
export { classifyEndpoints, isTunnelUrl, TUNNEL_DOMAINS, type ClassifiedEndpoint, type ProjectMemory } from './classify-endpoints.js';
export { parseClash } from './clash-message.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './api-retry.js';
