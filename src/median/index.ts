// The public face of src/median: the protocol in one place.
export * from './key.js';
export * from './signature.js';
export * from './protocol.js';
export * from './verdict-types.js';
export * from './call-record.js';
