// src/watch: watching files (the env cascade, the project state) and saying what changed.
// Layer: a part. May import: src/events, src/median, src/config, src/presentation, src/shared, src/platform.
export { startFileWatcher, type FileWatcher, type FileWatcherOptions } from './file-watcher.js';
