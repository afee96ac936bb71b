import { join, resolve } from 'node:path';
import { readRegularFile } from '../shared/regular-file.js';
import { UserError, errorCode } from '../shared/errors.js';
import { ensurePrivateDir, writeFileAtomic } from '../shared/private-files.js';

/** What the data dir remembers between runs (state.json). */
export interface ProjectState {
  version: 1;
  /** What the last `start` used, so other commands default to it. */
  target?: string;
  /**
   * How that target came: `flag` (--target, given once: later starts keep
   * it as if given again), or found from the dev server (`announced`: the URL
   * it printed; `listening`: the port it opened): a later start finds it again.
   */
  targetFrom?: 'flag' | 'announced' | 'listening';
  route?: string;
  proxyUrl?: string;
  medianApi?: string;
  subdomain?: string;
  /** The tunnel provider the last `start --tunnel …` chose (a later start without --tunnel takes it). */
  tunnel?: string;
  /** `--domain`: the ngrok static domain. */
  ngrokDomain?: string;
  /** `--ssh`: the SSH tunnel server. */
  sshDestination?: string;
  /** This project's endpoint id at Median. */
  endpointId?: string;
  /** The public tools URL Median knows for this project. */
  toolsUrl?: string;
  /** Every tools URL this data dir has used (proof an endpoint was ours). */
  tunnelUrls?: string[];
  /**
   * The domains the last start's tunnel server names tunnels under: an
   * endpoint there is a dev tunnel (a teammate's on the same server), never
   * production; other commands classify endpoints with them too.
   */
  tunnelDomains?: string[];
  /**
   * `start --allow-production-org` was given once: this project may connect
   * into an organisation that holds production endpoints.
   */
  allowProductionOrg?: boolean;
  updatedAt?: string;
}

export const STATE_VERSION = 1;
const STATE_FILE = 'state.json';

export async function readProjectState(dataDir: string): Promise<ProjectState> {
  let text: string;
  try {
    // Never through a link planted in the data dir (ENOTREGULAR: data_dir_unreadable below, which says so).
    text = (await readRegularFile(join(dataDir, STATE_FILE), { noFollow: true })).toString('utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { version: STATE_VERSION };
    if (errorCode(error) === 'ENOTDIR') {
      throw new UserError('data_dir_not_a_folder', `The data dir ${dataDir} is not a folder: a file is in its place.`, {
        hint: 'Move that file away, or pass another --data-dir (or MEDIAN_DEV_DIR).',
        cause: error,
      });
    }
    throw new UserError('data_dir_unreadable', `Cannot read ${join(dataDir, STATE_FILE)} (${error instanceof Error && errorCode(error) === 'ENOTREGULAR' ? error.message : (errorCode(error) ?? String(error))}).`, {
      hint: 'Check the data dir permissions, or pass another --data-dir.',
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UserError('data_dir_corrupt', `${join(dataDir, STATE_FILE)} is not valid JSON.`, {
      hint: 'Delete that file; median-dev makes it again on the next start (the endpoint id it held is then found by URL).',
      cause: error,
    });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { version: STATE_VERSION };
  const version = (parsed as { version?: unknown }).version;
  if (typeof version === 'number' && version > STATE_VERSION) {
    throw new UserError('data_dir_too_new', `The data dir ${dataDir} was written by a newer median-dev (state version ${version}).`, {
      hint: 'Upgrade median-dev, or pass another --data-dir.',
    });
  }
  const wrongField = Object.entries(parsed).find(([name, value]) => !isFieldOk(name, value));
  if (wrongField) {
    throw new UserError('data_dir_corrupt', `${join(dataDir, STATE_FILE)} is damaged: its "${wrongField[0]}" is not what median-dev wrote.`, {
      hint: 'Delete that file; median-dev makes it again on the next start (the endpoint id it held is then found by URL).',
    });
  }
  return { ...(parsed as ProjectState), version: STATE_VERSION };
}

/** The fields median-dev writes are strings (tunnelUrls: strings; allowProductionOrg: a boolean); unknown ones are kept as they are. */
function isFieldOk(name: string, value: unknown): boolean {
  if (name === 'version') return true;
  if (name === 'tunnelUrls' || name === 'tunnelDomains') return Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (STRING_FIELDS.has(name)) return typeof value === 'string';
  if (name === 'allowProductionOrg') return typeof value === 'boolean';
  if (name === 'targetFrom') return value === 'flag' || value === 'announced' || value === 'listening';
  return true;
}

const STRING_FIELDS = new Set(['target', 'route', 'proxyUrl', 'medianApi', 'subdomain', 'tunnel', 'ngrokDomain', 'sshDestination', 'endpointId', 'toolsUrl', 'updatedAt']);

/** Merges `patch` into state.json (0600, atomic), after the updates of the same data dir still in flight. */
export function updateProjectState(dataDir: string, patch: Partial<ProjectState>): Promise<ProjectState> {
  // One update at a time per data dir: each reads the file, merges its patch and writes it whole, so two at once
  // (the dev server's target found while the endpoint's sync is remembered) lost the first one's patch.
  const key = resolve(dataDir);
  const update = (updates.get(key) ?? Promise.resolve()).catch(() => undefined).then(() => writeUpdate(dataDir, patch));
  const tail = update.catch(() => undefined);
  updates.set(key, tail);
  void tail.then(() => {
    if (updates.get(key) === tail) updates.delete(key);
  });
  return update;
}

/** The updates of each data dir in flight, by resolved path: the last one's settling. */
const updates = new Map<string, Promise<unknown>>();

async function writeUpdate(dataDir: string, patch: Partial<ProjectState>): Promise<ProjectState> {
  await ensurePrivateDir(dataDir);
  const current = await readProjectState(dataDir);
  const next: ProjectState = { ...current, ...patch, version: STATE_VERSION, updatedAt: new Date().toISOString() };
  await writeFileAtomic(join(dataDir, STATE_FILE), `${JSON.stringify(next, null, 2)}\n`);
  return next;
}
