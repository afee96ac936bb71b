// The one file that imports chokidar and picomatch.
import { watch, type FSWatcher } from 'chokidar';
import picomatch from 'picomatch';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { silentLogger, type Logger } from '../shared/logger.js';

export interface FileWatcherOptions {
  cwd: string;
  /** Exact files to watch (the env file); they may not exist yet. */
  files?: string[];
  /** Globs relative to cwd (`--watch src/tools/**`). */
  globs?: string[];
  /** Changes within this window are reported together. */
  debounceMs?: number;
  onChange(paths: string[]): void;
  logger?: Logger;
}

export interface FileWatcher {
  /** Resolves once the initial scan is done (changes after it are reported). */
  ready: Promise<void>;
  close(): Promise<void>;
}

const ALWAYS_IGNORED = /(^|[\\/])(node_modules|\.git|\.median-dev|dist|\.next)([\\/]|$)/;

/**
 * Watches files and globs; chokidar 4+ dropped globs, so each glob's static
 * base folder is watched and paths are matched with picomatch.
 */
export function startFileWatcher(options: FileWatcherOptions): FileWatcher {
  const logger = options.logger ?? silentLogger;
  const debounceMs = options.debounceMs ?? 300;
  const files = new Set((options.files ?? []).map((f) => resolve(options.cwd, f)));
  const globs = options.globs ?? [];
  const matchers = globs.map((g) => picomatch(g, { dot: true }));
  const bases = globs.map((g) => resolve(options.cwd, picomatch.scan(g).base || '.'));

  const isWanted = (path: string): boolean => {
    const abs = isAbsolute(path) ? path : resolve(options.cwd, path);
    if (files.has(abs)) return true;
    const rel = relative(options.cwd, abs).split(sep).join('/');
    return matchers.some((m) => m(rel));
  };

  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const paths = [...pending];
    pending.clear();
    if (paths.length > 0) options.onChange(paths);
  };
  const onEvent = (path: string) => {
    if (!isWanted(path)) return;
    pending.add(isAbsolute(path) ? path : resolve(options.cwd, path));
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, debounceMs);
    timer.unref();
  };

  const targets = [...files, ...bases];
  let watcher: FSWatcher | undefined;
  let ready: Promise<void> = Promise.resolve();
  if (targets.length > 0) {
    const w = watch(targets, {
      ignoreInitial: true,
      ignored: (path: string) => !files.has(path) && ALWAYS_IGNORED.test(relative(options.cwd, path)),
      awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 20 },
    });
    watcher = w;
    w.on('add', onEvent).on('change', onEvent).on('unlink', onEvent);
    w.on('error', (error) => logger.warn(`File watcher: ${error instanceof Error ? error.message : String(error)}`));
    ready = new Promise((r) => w.once('ready', () => r()));
  }

  let closing: Promise<void> | undefined;
  return {
    ready,
    close() {
      closing ??= (async () => {
        if (timer) clearTimeout(timer);
        timer = undefined;
        pending.clear();
        await watcher?.close();
      })();
      return closing;
    },
  };
}
