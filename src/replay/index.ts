export { diffResponses, diffLines, type ResponseDiff, type DiffLine } from './response-diff.js';
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
