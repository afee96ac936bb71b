// The public face of src/inspector-server: the browser inspector's server (page, JSON API, live channel).
export { startInspectorServer, DEFAULT_INSPECTOR_PORT, type InspectorServer, type InspectorServerOptions } from './start-inspector-server.js';
export { type RecordMatcher } from './call-index.js';
export { MAX_HAR_RECORDS } from './api-routes.js';
