// src/median: the protocol in one place: signing, manifest and sync rules, verdicts, the response diff, the Median API client.
// Layer: the core layer. May import: src/shared, src/platform.
export * from './key.js';
export * from './signature.js';
export * from './protocol.js';
export * from './verdict-types.js';
export * from './call-record.js';
export * from './replay-marker.js';
export * from './unsigned-original.js';
export { isCallRecord, isRepeatLine } from './record-shape.js';
export * from './api-client.js';
export * from './messages.js';
export * from './manifest-rules.js';
export * from './sync-rules.js';
export * from './verdict.js';
export { describeDiagnosticsAnswer } from './diagnostics-summary.js';
export * from './route-parser.js';
export * from './tool-definition-rules.js';
export * from './connect-fixes.js';
export * from './sync-fixes.js';
export * from './record-filter.js';
export * from './input-schema.js';
export * from './load-fixes.js';
export { diffResponses, diffLines, type ResponseDiff, type DiffLine } from './response-diff.js';
export { recordedToolCall, type RecordedToolCall } from './recorded-tool-call.js';
export * from './approved-run.js';
export * from './run-fixes.js';
export * from './tool-use-checks.js';
