// src/presentation: what every screen shows of a call, in the same words and colours (TUI, inspector, plain output, the `test` report); Node-free, so the page bundles it.
// Layer: the core layer. May import: src/median, src/shared, src/platform.
// No screen owns it, and no screen is imported here.
export type { Color } from './color.js';
export { verdictColor, statusColor, signatureMark, type Mark } from './call-colors.js';
export { formatClock, formatDuration, isSlowCall } from './format-time.js';
export { repeatMark, toolText } from './call-labels.js';
export { heldLabel, describeDecision, type HeldCall, type DecisionOutcome } from './held-call-text.js';
export {
  callDetailOf,
  callPartsOf,
  cutDetail,
  maskedHeader,
  signatureAgeText,
  MAX_DETAIL_LINES,
  type CallDetail,
  type DetailField,
  type DetailFieldKey,
  type DetailNote,
  type DetailSection,
  type DetailSectionKey,
} from './detail-sections.js';
