// The public face of src/proxy: the recording reverse proxy.
export {
  startRecordingProxy,
  DEFAULT_PROXY_LIMITS,
  type RecordingProxy,
  type RecordingProxyOptions,
  type RecordingProxyLimits,
  type RequestStartedInfo,
} from './recording-proxy.js';
export { HEALTH_PATH, PROXY_ERROR_CODES, PROXY_MESSAGES } from './proxy-answers.js';
