import { errorCode } from '../shared/errors.js';
import { connectControl } from './control-client.js';
import { readControlFile, type ControlFileInfo } from './control-file.js';

/** How long a daemon named by control.json has to answer before it counts as gone. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * The daemon running for a data dir, proven by asking it: control.json's pid
 * alone is not proof (the pid may have been reused by an unrelated process
 * after a crash), so its control channel must answer with the snapshot for
 * the token in the file. Undefined when no daemon answers (no file, a dead
 * pid, or a live pid that is not our daemon: its port refuses, or what
 * listens there does not take the token). A daemon too busy to answer in
 * time still counts as running: a second daemon would be the worse mistake.
 */
export async function findRunningDaemon(dataDir: string, options: { timeoutMs?: number } = {}): Promise<ControlFileInfo | undefined> {
  const info = await readControlFile(dataDir);
  if (!info || info.isStale) return undefined;
  try {
    const client = await connectControl({ port: info.port, token: info.token, timeoutMs: options.timeoutMs ?? PROBE_TIMEOUT_MS, heartbeatTimeoutMs: 0 });
    await client.close();
    return info;
  } catch (error) {
    if (errorCode(error) === 'control_timeout') return info;
    return undefined; // nothing listens there, or something that is not our daemon with this token
  }
}
