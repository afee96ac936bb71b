// src/saved-calls: recorded calls kept as files and run as regression tests (`calls save`, `median-dev test`).
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
// The CLI wires the store, the sender and the HAR writer in.
export { SAVED_CALL_FORMAT, serializeSavedCall, parseSavedCall, type SavedCall, type SavedCallExpectation, type LoadedSavedCall } from './saved-call.js';
export { savedCallFromRecord, checkSavedName, defaultSavedName, VISITOR_PLACEHOLDERS, type SaveOptions } from './save-from-record.js';
export { findNoise, withIgnored, IGNORED } from './ignore-paths.js';
export { compareAnswer, describeVerdictChange, unifiedDiff, type FreshAnswer, type CheckProblem, type CheckProblemCode, type Comparison } from './compare-answer.js';
export { checkAgainstManifest } from './manifest-checks.js';
export { runSavedCalls, type RunSavedCallsOptions, type SavedCallResult, type SavedCallOutcome, type SentAnswer } from './run-saved-calls.js';
export { junitReport, xmlEscape, type JunitOptions } from './junit-report.js';
export { savedCallAsRecord } from './saved-call-record.js';
export { toolCallsFromHar, type HarToolCalls } from './har-import.js';
export { stableJson, canonicalJson } from './stable-json.js';
export { DEFAULT_CALLS_DIR, saveRecordAsTest, shownPath, writeSavedCall } from './saved-call-files.js';
