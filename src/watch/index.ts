export { startFileWatcher, type FileWatcher, type FileWatcherOptions } from './file-watcher.js';
