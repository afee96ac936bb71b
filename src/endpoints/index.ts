// src/endpoints: keeping Median's endpoint right: change, connect, adopt, heal clashes; whose each endpoint is; the production guard.
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export { createEndpointKeeper, type EndpointKeeper, type EndpointKeeperOptions } from './endpoint-keeper.js';
export { GUARD_LIST_REUSE_MS } from './fresh-list.js';
export type { RouteConnectOutcome } from './route-connect-retry.js';
export { classifyEndpoints, ourEndpoints, type ClassifiedEndpoint, type ProjectMemory } from './classify-endpoints.js';
export { foreignOwnerOf, isTunnelUrl, ownerOf, OWNER_LABELS, TUNNEL_DOMAINS, type EndpointOwner } from './endpoint-owner.js';
export { ALLOW_PRODUCTION_FLAG, decideProductionGuard, type ProductionGuardDecision } from './production-guard.js';
export { clashAdvice, type ClashFacts } from './clash-advice.js';
export { parseClash } from './clash-message.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './api-retry.js';
export { isStartingFailure, type StartingPolicy } from './starting-retry.js';
export { checkOrganisation, type OrganisationProblem } from './organisation-rules.js';
export { createRouteRetry, isWaitingForRoute, type RouteRetry, type RouteRetryOptions } from './route-retry.js';
export { waitForRoute, isRouteAnswering, type RouteReadinessOptions } from './route-readiness.js';
export { createNudgeSource } from './nudged-pause.js';
