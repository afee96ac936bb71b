// The public face of src/presentation: what every screen shows of a call, in the
// same words and colours (the terminal UI, the browser inspector, the CLI's
// plain output, `median-dev test`'s report). Core layer: imports median (types,
// verdict labels) and shared only, and stays free of Node modules, so the
// inspector's browser bundle can use it. No screen owns it; no screen is imported here.
export type { Color } from './color.js';
export { verdictColor, statusColor, signatureMark, type Mark } from './call-colors.js';
export { formatClock, formatDuration, isSlowCall } from './format-time.js';
export { repeatMark, toolText } from './call-labels.js';
