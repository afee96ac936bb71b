import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isEnvFileReloadedBy, recogniseDevServer, type DevServerProfile, type EnvReload, type ProjectPackage } from '../child/index.js';
import { readEnvFile, type RestartOnUrlChange } from '../config/index.js';
import { restartHint } from '../events/index.js';

/** What a new tunnel URL does to a running dev server. */
export type UrlChangeMode =
  | { kind: 'restart' }
  /** `never`: it keeps running with the URL it started with in its environment. */
  | { kind: 'keep' }
  /** It reloads `envFile` by itself: left running, and MEDIAN_TOOLS_URL stays out of its environment. */
  | { kind: 'reloads'; server: DevServerProfile & { reloads: EnvReload }; envFile: string };

export interface UrlChangeDecision {
  mode: UrlChangeMode;
  /** Said once, at the dev server's first start. */
  note?: string;
}

const asRecord = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});

/** package.json's scripts and dependency names in `cwd`; none when it is missing or not JSON. */
async function readProjectPackage(cwd: string): Promise<ProjectPackage> {
  try {
    const parsed = asRecord(JSON.parse(await readFile(join(cwd, 'package.json'), 'utf8')));
    const dependencies = new Set([...Object.keys(asRecord(parsed.dependencies)), ...Object.keys(asRecord(parsed.devDependencies))]);
    return { scripts: asRecord(parsed.scripts), dependencies };
  } catch {
    return { scripts: {}, dependencies: new Set() }; // no package.json (or not JSON): the command alone decides
  }
}

/** `--restart-on-url-change` applied to this dev server command and env file. */
export async function decideUrlChangeMode(options: {
  policy: RestartOnUrlChange;
  command: readonly string[];
  cwd: string;
  envFile: string | null;
}): Promise<UrlChangeDecision> {
  const { policy, envFile } = options;
  if (policy === 'always') return { mode: { kind: 'restart' } };
  if (policy === 'never') {
    return {
      mode: { kind: 'keep' },
      note: `The dev server is never restarted when the tunnel URL changes (--restart-on-url-change never): it keeps the MEDIAN_TOOLS_URL it started with in its environment until you restart it (${restartHint()}).`,
    };
  }
  const server = recogniseDevServer(options.command, await readProjectPackage(options.cwd));
  if (!server) return { mode: { kind: 'restart' } };
  const { reloads } = server;
  if (!reloads) {
    return { mode: { kind: 'restart' }, note: `${server.name} recognised: ${server.restartReason ?? 'it does not reread env files'}, so median-dev restarts it when the tunnel URL changes, with MEDIAN_TOOLS_URL in its environment.` };
  }
  const files = reloads.envFiles.join(', ');
  if (envFile === null || !isEnvFileReloadedBy(reloads, envFile, options.cwd)) {
    const where = envFile === null ? 'median-dev writes no env file (--no-env-file)' : `${envFile} is not one of them (${files} beside package.json)`;
    return { mode: { kind: 'restart' }, note: `${server.name} recognised: it reloads ${files} by itself, but ${where}: it is restarted when the tunnel URL changes, with MEDIAN_TOOLS_URL in its environment.` };
  }
  const file = basename(envFile);
  // A file it reads before ours that sets MEDIAN_TOOLS_URL wins over ours on every reload: only a restart (the URL in its environment) gets through.
  const earlier = await earlierFileSettingToolsUrl(reloads, envFile);
  if (earlier) {
    return { mode: { kind: 'restart' }, note: `${server.name} recognised: it reloads ${file} by itself, but ${earlier} also sets MEDIAN_TOOLS_URL and wins over ${file}: it is restarted when the tunnel URL changes. Remove MEDIAN_TOOLS_URL from ${earlier} to keep it running.` };
  }
  const readWith = reloads.readWith ? ` Read MEDIAN_TOOLS_URL and MEDIAN_KEY in the route with ${reloads.readWith}: process.env keeps the values it started with.` : '';
  return {
    mode: { kind: 'reloads', server: { ...server, reloads }, envFile },
    note: `${server.name} recognised: it reloads ${file} by itself (${reloads.how}), so it keeps running when the tunnel URL changes or the key rotates, and MEDIAN_TOOLS_URL stays out of its environment so the reloaded value wins (--restart-on-url-change always restarts it instead).${readWith}`,
  };
}

/** The first of the server's env files read before `envFile` (same folder) that sets MEDIAN_TOOLS_URL. */
async function earlierFileSettingToolsUrl(reloads: EnvReload, envFile: string): Promise<string | undefined> {
  const earlier = reloads.envFiles.slice(0, reloads.envFiles.indexOf(basename(envFile)));
  for (const name of earlier) {
    const vars = await readEnvFile(join(dirname(envFile), name)).catch(() => ({}) as Record<string, string>);
    if (vars.MEDIAN_TOOLS_URL !== undefined) return name;
  }
  return undefined;
}
