// src/shared: below everything: error codes, errors, the clock, the health check, logging, bounded JSON.
// Layer: the base layer. May import: nothing of src/ (Node and its own files only).
export { MedianDevError, UserError, isMedianDevError, errorCode, codeOf } from './errors.js';
export { type ErrorCode, type OwnErrorCode, type MedianErrorCode, receivedErrorCode, isKnownErrorCode } from './error-codes.js';
export { type Logger, silentLogger } from './logger.js';
export { ensurePrivateDir, writeFileAtomic } from './private-files.js';
export { pause, delayOrAbort } from './delay.js';
export { HOP_BY_HOP_HEADERS } from './hop-by-hop-headers.js';
export { findFreePort } from './free-port.js';
export {
  createSecretMasker,
  maskSecretValue,
  maskAuthorization,
  REDACTED,
  type SecretMasker,
  type SecretMaskerOptions,
} from './secret-masker.js';
export { secretSpellings, urlEncodedSpelling } from './secret-spellings.js';
export { safeText, safeLine, safeJson, escapeJsonControls, safeStrings, safeTerminalOutput, escapeControl } from './output-sanitiser.js';
export { mapStrings } from './map-strings.js';
export { OWNER_LABELS, type EndpointOwner } from './endpoint-owner.js';
export { INSPECTOR_SESSION_HEADER, LEGACY_INSPECTOR_COOKIE, maskInspectorCredentials } from './inspector-session.js';
export { systemClock, everyOnClock, type Clock, type ClockTimer } from './clock.js';
export { createWorkInterval, type WorkInterval } from './work-interval.js';
