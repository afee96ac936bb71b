// src/proxy: the recording reverse proxy in front of the dev server.
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export {
  startRecordingProxy,
  DEFAULT_PROXY_LIMITS,
  type RecordingProxy,
  type RecordingProxyOptions,
  type RecordingProxyLimits,
  type RequestStartedInfo,
} from './recording-proxy.js';
export { HEALTH_PATH, PROXY_ERROR_CODES, PROXY_MESSAGES } from './proxy-answers.js';
