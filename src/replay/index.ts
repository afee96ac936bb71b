// src/replay: replaying a recorded call, signed anew, and comparing the answers.
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
// The response diff is the median layer's (src/median/response-diff.ts): the replay, the inspector and `test` share it.
export { diffResponses, diffLines, type ResponseDiff, type DiffLine } from '../median/index.js';
export {
  prepareReplay,
  prepareTestCall,
  parseInputJson,
  needsConfirmation,
  stricterRisk,
  declaredRiskOf,
  newCallId,
  REPLAY_OF_HEADER,
  type ReplayOptions,
  type PreparedCall,
} from './replay-request.js';
export { sendSignedCall, type SignedSendOptions, type SignedSendResult } from './send-signed-call.js';
export { summarizeReplay, describeReplayHow, type ReplaySummary } from './replay-summary.js';
