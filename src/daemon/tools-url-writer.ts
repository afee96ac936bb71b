import { updateProjectState, writeToolsUrl, type EnvFileSnapshot } from '../config/index.js';
import type { Clock } from '../shared/clock.js';
import type { NewDaemonEvent } from '../events/index.js';
import type { Logger } from '../shared/logger.js';
import type { EnvVars } from './env-vars.js';

export interface ToolsUrlWriterOptions {
  envFile: string | null;
  dataDir: string;
  vars: EnvVars;
  emit(event: NewDaemonEvent): void;
  logger: Logger;
  /**
   * The env file's settled read, begun before the URL was known (as soon as
   * the config was: settleEnvFileEarly): the first write, when the file is
   * untouched since, waits for no settle of its own.
   */
  settled?: Promise<EnvFileSnapshot | undefined> | undefined;
  /** What the env file's settle waits on; real time when left out. */
  settleClock?: Clock;
}

/** Step 1 of a URL change (SPEC §2.1): MEDIAN_TOOLS_URL in the env file. */
export interface ToolsUrlWriter {
  /** The tools URL applied last; undefined until the tunnel first opened. */
  current(): string | undefined;
  /**
   * A new URL: written into the env file (when it says otherwise), announced
   * as `tools-url`, noted in the data dir. The same URL again does nothing.
   */
  write(url: string): Promise<void>;
  /** Resolves once the data dir holds the URL written last (write() does not wait for that). */
  noted(): Promise<void>;
}

export function createToolsUrlWriter(options: ToolsUrlWriterOptions): ToolsUrlWriter {
  const { envFile, emit, logger } = options;
  let current: string | undefined;
  let settled = options.settled;
  let noting: Promise<void> = Promise.resolve();
  return {
    current: () => current,
    noted: () => noting,
    async write(url) {
      if (url === current) return;
      current = url;
      // The early settled read serves the first write only: a later one would find the file changed by it anyway.
      const since = settled;
      settled = undefined;
      const writeOptions = { stagingDir: options.dataDir, settled: since, ...(options.settleClock ? { clock: options.settleClock } : {}) };
      if (envFile && (await writeToolsUrl(envFile, url, writeOptions))) options.vars.set({ ...options.vars.get(), MEDIAN_TOOLS_URL: url });
      emit({ event: 'tools-url', url, envFile });
      // The data dir knows the URL in use even before Median does: `median-dev sync` asks for it. The dev server's
      // start does not wait for that note (a read, a write and an fsync: 5-9 ms of every start on a 2-core machine);
      // the data dir's updates stay in the order they are asked for (project-state.ts), so a later one lands after it.
      noting = updateProjectState(options.dataDir, { toolsUrl: url }).then(
        () => undefined,
        (error: unknown) => logger.warn(`Could not note the tools URL in ${options.dataDir}: ${error instanceof Error ? error.message : String(error)}`),
      );
    },
  };
}
