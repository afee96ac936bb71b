export {
  type ChildProcessOptions,
  type ChildState,
  type ChildRunner,
  DEFAULT_STOP_GRACE_MS,
  startChildProcess,
} from './child-runner.js';
export { type LineSplitter, createLineSplitter } from './line-splitter.js';
