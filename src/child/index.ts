// src/child: the dev server as a child process: start, output, restart, stop, orphan reaping.
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export {
  type ChildProcessOptions,
  type ChildState,
  type ChildRunner,
  DEFAULT_STOP_GRACE_MS,
  startChildProcess,
} from './child-runner.js';
export { type LineSplitter, createLineSplitter } from './line-splitter.js';
export { createChildKeeper, type ChildKeeper } from './child-keeper.js';
export { buildChildEnv, withoutToolsUrl } from './child-env.js';
export { reapOrphanChild } from './orphan-child.js';
export { type ProjectPackage, isEnvFileReloadedBy, recogniseDevServer } from './recognise-dev-server.js';
export { type DevServerProfile, type EnvReload } from './dev-server-profiles.js';
export { type AnnouncedUrl, findAnnouncedUrl, stripTerminalCodes } from './announced-url.js';
