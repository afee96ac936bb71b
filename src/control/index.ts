// src/control: the daemon's control channel (WebSocket on 127.0.0.1) for second terminals and the TUI.
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export { startControlServer, type ControlServer, type ControlServerOptions } from './control-server.js';
export {
  connectControl,
  connectToDaemon,
  type ControlClient,
  type ConnectControlOptions,
  type ConnectToDaemonOptions,
} from './control-client.js';
export {
  readControlFile,
  readRunningDaemonSettings,
  controlFilePath,
  CONTROL_FILE_NAME,
  type ControlFileInfo,
  type ControlFileContents,
  type ReadControlFileOptions,
} from './control-file.js';
export { findRunningDaemon } from './running-daemon.js';
