// src/emulator: the Median cloud on loopback.
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export { startEmulator, type Emulator, type EmulatorOptions } from './start-emulator.js';
export { generateMedianKey } from './key-ring.js';
export { DEFAULT_EMULATOR_LIMITS, type EmulatorLimits } from './emulator-limits.js';
export type { CallToolRequest, EmulatedCall, EmulatedDiagnostics } from './tool-caller.js';
export type { Traffic, TrafficOptions } from './traffic.js';
export type { HostResolver } from './outbound-request.js';
export { API_KEY_RULES } from './api-auth.js';
export { ENDPOINT_URL_RULES } from './endpoint-url-rules.js';
export { sampleInput } from './sample-input.js';
export type { HeldEndpointSpec } from './held-endpoint.js';
export type { ApprovalRequest, ApproveOptions, ApprovedRunFault, ReviewerDecision, TeammateRun } from './approvals.js';
export type { Conversation, ThreadEntry, FirstReplySync } from './conversations.js';
export type { AgentCallOutcome } from './agent-calls.js';
export { parseTunnelDomain, tunnelDomainResolver, tunnelHostUrl, TUNNEL_DOMAIN_FORM, type TunnelDomain } from './tunnel-domains.js';
