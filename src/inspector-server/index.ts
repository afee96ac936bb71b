// src/inspector-server: the browser inspector's server: the safety gate, the page, the JSON API, the live channel.
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export { startInspectorServer, DEFAULT_INSPECTOR_PORT, type InspectorServer, type InspectorServerOptions } from './start-inspector-server.js';
export { type RecordMatcher } from './call-index.js';
export { MAX_HAR_RECORDS } from './api-routes.js';
