// src/recorder: the call store in the data dir (JSONL segments, masking, retention), its readers, HAR and curl export.
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export { openRecorder, type Recorder, type RecorderOptions, type RecorderStats } from './recorder.js';
export { skippedLinesNote } from './skipped-lines.js';
export { createCallStore, type CallStore, type CallQuery, type CallCandidate } from './call-store.js';
export { DEFAULT_RETENTION, type RetentionLimits } from './retention.js';
export { toHar, type HarLog, type HarEntry, type HarOptions } from './har.js';
export { toCurl, shellQuote, type CurlOptions } from './curl.js';
export { callsDirOf } from './segment-files.js';
