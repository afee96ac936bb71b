// src/platform: what differs between macOS, Linux and Windows: processes, signals, executables on PATH, browsers, file modes.
// Layer: the base layer. May import: src/shared.
export { killProcessTreeNow } from './process-signals.js';
export { type SystemCalls, realSystemCalls, withSystemCalls } from './system-calls.js';
export { type SpawnCommandSpec, spawnCommandSpec, describeCommand } from './spawn-command.js';
export {
  windowsCommandLine,
  quoteWindowsArgument,
  escapeWindowsCommandName,
  isWindowsBatchCommand,
} from './windows-command-line.js';
export {
  type StopMode,
  type TreeSignalPlan,
  type SignalTarget,
  planTreeSignal,
  stopModes,
  stopSignals,
  signalProcessTree,
} from './process-signals.js';
export { type ProcStat, parseProcStat, isProcessAlive, isProcessGroupAlive, readProcessStartTime, readProcessIdentity } from './process-liveness.js';
export { browserCommand, openInBrowser } from './open-browser.js';
export { FORWARDING_PAGE_NAME, forwardingPageHtml, writeForwardingPage } from './forwarding-page.js';
export { findExecutable } from './find-executable.js';
export { type TunnelProgram, type ProgramExit, type StartTunnelProgramOptions, startTunnelProgram } from './tunnel-process.js';
export { type ListeningSocket, type PortLookupSystem, findListeningPorts, originOfListening, realPortLookupSystem } from './listening-ports.js';
export { type OutputDevice, outputDeviceOf } from './output-device.js';
