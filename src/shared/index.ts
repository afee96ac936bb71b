export { MedianDevError, UserError, isMedianDevError, errorCode } from './errors.js';
export { type Logger, silentLogger } from './logger.js';
export { ensurePrivateDir, writeFileAtomic } from './private-files.js';
export type { DaemonEvent, DaemonEventName, DaemonSnapshot, ControlCommand } from './daemon-events.js';
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
export { secretSpellings } from './secret-spellings.js';
export { safeText, safeLine, safeJson, safeStrings, safeTerminalOutput, escapeControl } from './output-sanitiser.js';
export { mapStrings } from './map-strings.js';
