// The public face of src/median: the protocol in one place.
export * from './key.js';
export * from './signature.js';
export * from './protocol.js';
export * from './verdict-types.js';
export * from './call-record.js';
export { isCallRecord, isRepeatLine } from './record-shape.js';
export * from './api-client.js';
export * from './messages.js';
export * from './manifest-rules.js';
export * from './sync-rules.js';
export * from './verdict.js';
export * from './route-parser.js';
export * from './tool-definition-rules.js';
export * from './connect-fixes.js';
export * from './sync-fixes.js';
export * from './record-filter.js';
export * from './input-schema.js';
export * from './load-fixes.js';
