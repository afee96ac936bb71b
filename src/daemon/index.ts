export { startDaemon, type Daemon, type DaemonOptions } from './start-daemon.js';
export { withRecordedPath, type RecordedPath } from './recorded-path.js';
export { configKeySource } from './key-source.js';
