import { unlink } from 'node:fs/promises';
import { readRegularFile } from '../shared/regular-file.js';
import { isProcessAlive } from '../platform/process-liveness.js';
import { join } from 'node:path';
import type { DaemonSettings } from '../config/resolve-config.js';
import { MedianDevError, errorCode } from '../shared/errors.js';
import { writeFileAtomic } from '../shared/private-files.js';

/**
 * `<dataDir>/control.json` tells clients (`watch`, `replay`, …) where the
 * running daemon's control channel listens and which token opens it. Written
 * 0600 and atomically; removed by the daemon that wrote it when it stops.
 */

export const CONTROL_FILE_NAME = 'control.json';

export interface ControlFileContents {
  port: number;
  token: string;
  pid: number;
  instanceId: string;
  /** ISO 8601. */
  startedAt: string;
  proxyUrl: string;
  /** The proxy's replay key: a request marked with it (`replayMarker`) is recorded as a replay. */
  replayKey?: string;
  /** What this daemon runs with: the other commands in its data dir default to it. */
  settings?: DaemonSettings;
}

export interface ControlFileInfo extends ControlFileContents {
  path: string;
  /** The process that wrote the file is gone (it crashed or was killed). */
  isStale: boolean;
}

export interface ReadControlFileOptions {
  /** Whether a process runs; default `process.kill(pid, 0)`. */
  isAlive?: (pid: number) => boolean;
}

export function controlFilePath(dataDir: string): string {
  return join(dataDir, CONTROL_FILE_NAME);
}

export async function writeControlFile(dataDir: string, contents: ControlFileContents): Promise<void> {
  await writeFileAtomic(controlFilePath(dataDir), `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Reads control.json: undefined when there is none, `isStale` when its pid is
 * not alive. A file that is not a control file is `control_file_invalid`.
 */
export async function readControlFile(dataDir: string, options: ReadControlFileOptions = {}): Promise<ControlFileInfo | undefined> {
  const path = controlFilePath(dataDir);
  const text = await readIfPresent(path);
  if (text === undefined) return undefined;
  const contents = parseControlFile(text);
  if (!contents) {
    throw new MedianDevError('control_file_invalid', `${path} is not a median-dev control file.`, {
      hint: 'If no median-dev daemon runs in this data dir, delete the file and start again with `median-dev start`.',
    });
  }
  const isAlive = options.isAlive ?? isProcessAlive;
  return { ...contents, path, isStale: !isAlive(contents.pid) };
}

/** Removes control.json if it is still the one `instanceId` wrote; true when removed. */
export async function removeControlFileIfOurs(dataDir: string, instanceId: string): Promise<boolean> {
  const path = controlFilePath(dataDir);
  const text = await readIfPresent(path);
  if (text === undefined || parseControlFile(text)?.instanceId !== instanceId) return false;
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    // A link planted in the data dir is not followed (ENOTREGULAR is thrown, as other read errors are).
    return (await readRegularFile(path, { noFollow: true })).toString('utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function parseControlFile(text: string): ControlFileContents | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const isPort = Number.isInteger(v.port) && (v.port as number) > 0 && (v.port as number) < 65536;
  const isPid = Number.isInteger(v.pid) && (v.pid as number) > 0;
  if (!isPort || !isPid) return undefined;
  if (typeof v.token !== 'string' || v.token === '' || typeof v.instanceId !== 'string') return undefined;
  if (typeof v.startedAt !== 'string' || typeof v.proxyUrl !== 'string') return undefined;
  return {
    port: v.port as number,
    token: v.token,
    pid: v.pid as number,
    instanceId: v.instanceId,
    startedAt: v.startedAt,
    proxyUrl: v.proxyUrl,
    ...(typeof v.replayKey === 'string' && v.replayKey !== '' ? { replayKey: v.replayKey } : {}),
    ...(isDaemonSettings(v.settings) ? { settings: v.settings } : {}),
  };
}

function isDaemonSettings(value: unknown): value is DaemonSettings {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.target === 'string' && typeof v.route === 'string' && typeof v.medianApi === 'string' && (typeof v.envFile === 'string' || v.envFile === null);
}

/** The settings of the daemon running in `dataDir` (control.json, its pid alive), or undefined. */
export async function readRunningDaemonSettings(dataDir: string, options: ReadControlFileOptions = {}): Promise<DaemonSettings | undefined> {
  try {
    const info = await readControlFile(dataDir, options);
    return info && !info.isStale ? info.settings : undefined;
  } catch {
    return undefined; // an unreadable or foreign control.json: the command goes on with its own settings (findRunningDaemon reports it where it matters)
  }
}
