import type { Config } from '../config/index.js';
import { findRunningDaemon } from '../control/index.js';
import { newReplayKey, resolveToolSecret, secretsToMask, type CallRecord } from '../median/index.js';
import { openRecorder } from '../recorder/index.js';
import { startRecordingProxy } from '../proxy/index.js';
import { silentLogger, type Logger } from '../shared/logger.js';

export interface RecordedPath {
  /** The route URL to send to: through the running daemon's proxy, or a one-shot one. */
  routeUrl: string;
  /** True when a running daemon records (and shows) the call. */
  isThroughDaemon: boolean;
  /** The key that proxy checks replay markers with (`replayMarker`). */
  replayKey: string;
}

/**
 * Runs `send` against a route URL whose requests are recorded: the running
 * daemon's proxy when there is one (so the call shows live), else a one-shot
 * recording proxy in this process, closed once the record is stored.
 */
export async function withRecordedPath<T>(
  config: Config,
  send: (path: RecordedPath) => Promise<T>,
  options: { logger?: Logger } = {},
): Promise<{ value: T; record: CallRecord | undefined }> {
  const logger = options.logger ?? silentLogger;
  const control = await findRunningDaemon(config.dataDir).catch(() => undefined);
  if (control?.proxyUrl) {
    // A daemon from before replay keys has none: its replays are then recorded as plain calls.
    const value = await send({ routeUrl: `${control.proxyUrl}${config.route}`, isThroughDaemon: true, replayKey: control.replayKey ?? newReplayKey() });
    return { value, record: undefined };
  }

  let secret: Uint8Array | undefined;
  try {
    secret = config.medianKey || config.toolSecret ? resolveToolSecret({ medianKey: config.medianKey, toolSecret: config.toolSecret }) : undefined;
  } catch {
    secret = undefined;
  }
  const recorder = await openRecorder({ dataDir: config.dataDir, secrets: secretsToMask({ medianKey: config.medianKey, toolSecret: config.toolSecret }), logger });
  let stored: CallRecord | undefined;
  let storedPromise: Promise<void> | undefined;
  let notify: (() => void) | undefined;
  const recordArrived = new Promise<void>((resolve) => (notify = resolve));
  const replayKey = newReplayKey();
  const proxy = await startRecordingProxy({
    replayKey,
    target: config.target,
    route: config.route,
    port: 0,
    ...(secret ? { secret } : {}),
    logger,
    onRecord(record) {
      storedPromise = recorder.append(record).then(
        (masked) => {
          stored = masked;
        },
        (error) => logger.warn(`Could not record the call: ${error instanceof Error ? error.message : String(error)}`),
      );
      notify?.();
      return storedPromise;
    },
  }).catch(async (error) => {
    await recorder.close();
    throw error;
  });
  try {
    const value = await send({ routeUrl: `${proxy.url}${config.route}`, isThroughDaemon: false, replayKey });
    // The record is complete once the answer has been sent; give it a moment to land.
    const timer = new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref());
    await Promise.race([recordArrived, timer]);
    await storedPromise;
    return { value, record: stored };
  } finally {
    await proxy.close();
    await recorder.close();
  }
}
