import { dataDirError, dataDirModeNote, ignoreNewDataDir, type StartConfig } from '../config/index.js';
import { findRunningDaemon } from '../control/index.js';
import { reapOrphanChild } from '../child/index.js';
import { MedianDevError } from '../shared/errors.js';
import { ensurePrivateDir } from '../shared/private-files.js';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';
import { removeStaleTempFiles } from './stale-temps.js';

/** A line the daemon says once it runs. */
export interface StartNote {
  level: 'info' | 'warn';
  message: string;
}

/**
 * What a start does to the data dir before any part runs: refuses when a
 * daemon answers there, makes it (0700, ignored by git when new), takes its
 * lock, stops a dev server a crashed daemon left, and removes temp files a
 * killed one left. Resolves with the lock (the daemon releases it last) and
 * what to say about all that.
 */
export async function claimDataDir(
  config: Pick<StartConfig, 'dataDir' | 'envFile'>,
  pid: number,
): Promise<{ lock: DataDirLock; notes: StartNote[] }> {
  const { dataDir } = config;
  // A daemon runs here only if it answers on its control channel: a reused pid in a stale control.json does not count.
  const other = await findRunningDaemon(dataDir).catch(() => undefined);
  if (other) {
    throw new MedianDevError('daemon_already_running', `median-dev is already running for ${dataDir} (pid ${other.pid}, proxy ${other.proxyUrl}).`, {
      hint: `Attach to it with \`median-dev watch\`, stop it (Ctrl-C in its terminal, or \`kill ${other.pid}\`), or pass another --data-dir.`,
    });
  }
  const notes: StartNote[] = [];
  // Before anything creates it: a new data dir in a git checkout is ignored there.
  const ignoredNote = await ignoreNewDataDir(dataDir).catch(() => undefined);
  if (ignoredNote) notes.push({ level: 'info', message: ignoredNote });
  // The data dir, made (or tightened to) 0700 now: a folder that cannot be written is the user's to fix, said so.
  const before = await ensurePrivateDir(dataDir).catch((error: unknown) => {
    throw dataDirError(error, dataDir) ?? error;
  });
  // One daemon per data dir, even for two starts at the same instant (the control channel check above is not atomic).
  const lock = await acquireDataDirLock(dataDir, pid).catch((error: unknown) => {
    throw dataDirError(error, dataDir) ?? error;
  });
  // No daemon runs here, so a dev server still noted in the data dir was left by one that crashed.
  const reapedNote = await reapOrphanChild(dataDir).catch(() => undefined);
  if (reapedNote) notes.push({ level: 'warn', message: reapedNote });
  if (before !== undefined) notes.push({ level: 'warn', message: dataDirModeNote(dataDir, before) });
  // Temp files a daemon killed mid-write left (one beside the env file holds the key).
  const stale = await removeStaleTempFiles(dataDir, config.envFile).catch(() => [] as string[]);
  if (stale.length > 0) notes.push({ level: 'info', message: `Removed ${stale.length} temp file(s) an earlier median-dev left when it was killed mid-write: ${stale.join(', ')}` });
  return { lock, notes };
}
