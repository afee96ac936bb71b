// src/daemon: builds the parts and wires them: parts report facts, dispatch.ts decides what follows (the heal order, key rotation, control commands), shutdown.ts holds the close order.
// Layer: the daemon layer. May import: src/proxy, src/recorder, src/tunnel, src/tunnel-server, src/endpoints, src/emulator, src/control, src/tui, src/replay, src/watch, src/child, src/inspector-server, src/saved-calls, src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export { startDaemon, type Daemon, type DaemonOptions } from './start-daemon.js';
export { withRecordedPath, type RecordedPath } from './recorded-path.js';
export { configKeySource } from './key-source.js';
