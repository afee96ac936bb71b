import { missingKeyHint, readEnvCascade, readSettledEnvFile, type StartConfig } from '../config/index.js';
import type { DaemonFact, NewDaemonEvent } from '../events/index.js';
import { createMedianApiClient, type MedianApiClient } from '../median/index.js';
import { MedianDevError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import type { EnvVars } from './env-vars.js';

export interface KeyRotationOptions {
  config: Pick<StartConfig, 'envFile' | 'keyFile' | 'keySource' | 'medianKey' | 'medianApi'>;
  vars: EnvVars;
  emit(event: NewDaemonEvent): void;
  /** Where `envFile.keyChanged` goes (the daemon's dispatch). */
  report(fact: DaemonFact): void;
  logger: Logger;
  /** The API client's clock (request timeouts, sync polls); real time when left out. */
  clock?: Clock | undefined;
}

/** MEDIAN_KEY as the daemon uses it, and the Median API client that follows it. */
export interface KeyRotation {
  key(): string | undefined;
  /** The client for the key in use; undefined while no key is set. */
  api(): MedianApiClient | undefined;
  /** The client, or a `missing_key` error that says where to put the key. */
  requireApi(): MedianApiClient;
  /** What to do without a key: put it in the env file; median-dev picks it up. */
  readonly keyHint: string;
  /**
   * Re-reads the env file (after an edit): its variables are the dev
   * server's from now on, and another MEDIAN_KEY there is reported as
   * `envFile.keyChanged` (unless the environment's key wins, which is said).
   */
  reread(): Promise<void>;
  /** Uses `key` from now on (the API client follows). */
  use(key: string | undefined): void;
}

export function createKeyRotation(options: KeyRotationOptions): KeyRotation {
  const { config, emit, logger } = options;
  let key = config.medianKey;
  /** The MEDIAN_KEY the env file held last. */
  let fileKey = options.vars.get().MEDIAN_KEY || undefined;
  const clientFor = (k: string | undefined) => (k ? createMedianApiClient({ baseUrl: config.medianApi, key: k, logger, ...(options.clock ? { clock: options.clock } : {}) }) : undefined);
  let api = clientFor(key);
  const keyHint = `${missingKeyHint(config.envFile)} median-dev picks it up.`;

  return {
    key: () => key,
    api: () => api,
    keyHint,
    requireApi() {
      if (!api) throw new MedianDevError('missing_key', 'No MEDIAN_KEY is set, so median-dev cannot reach Median.', { hint: keyHint });
      return api;
    },
    async reread() {
      if (!config.envFile) return;
      const vars = await readSettledEnvFile(config.envFile);
      options.vars.set(vars);
      // The key as start read it: the env cascade in Next.js's order, every file of it watched,
      // each read once its write settled (a `.env` caught between truncation and write has no key).
      const cascade = await readEnvCascade(config.envFile, new Map([[config.envFile, vars]]), readSettledEnvFile);
      const nextKey = cascade.vars.MEDIAN_KEY || undefined;
      const source = nextKey ? cascade.sources.MEDIAN_KEY : undefined;
      const isFileKeyChange = nextKey !== fileKey;
      fileKey = nextKey;
      if (config.keySource === 'env') {
        // The environment's key wins over the file's: say so rather than ignore the edit silently.
        if (isFileKeyChange && nextKey) {
          emit({
            event: 'log',
            level: 'warn',
            message: `MEDIAN_KEY changed in ${source ?? config.envFile}, but median-dev uses the MEDIAN_KEY of its environment, which wins over the file's. Restart median-dev without MEDIAN_KEY in the environment to use the new key.`,
          });
        }
        return;
      }
      if (nextKey !== key) options.report({ type: 'envFile.keyChanged', key: nextKey, source });
    },
    use(next) {
      key = next;
      api = clientFor(next);
    },
  };
}
