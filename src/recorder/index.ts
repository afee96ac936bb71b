// The public face of src/recorder: the call store in the data dir.
export { openRecorder, type Recorder, type RecorderOptions, type RecorderStats } from './recorder.js';
export { skippedLinesNote } from './skipped-lines.js';
export { createCallStore, type CallStore, type CallQuery, type CallCandidate } from './call-store.js';
export { DEFAULT_RETENTION, type RetentionLimits } from './retention.js';
export { toHar, type HarLog, type HarEntry, type HarOptions } from './har.js';
export { toCurl, shellQuote, type CurlOptions } from './curl.js';
export { callsDirOf } from './segment-files.js';
