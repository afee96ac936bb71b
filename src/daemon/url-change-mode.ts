import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isEnvFileReloadedBy, recogniseEnvReloadingDevServer, type EnvReloadingDevServer } from '../child/index.js';
import { readEnvFile, type RestartOnUrlChange } from '../config/index.js';
import { restartHint } from '../events/index.js';

/** What a new tunnel URL does to a running dev server. */
export type UrlChangeMode =
  | { kind: 'restart' }
  /** `never`: it keeps running with the URL it started with in its environment. */
  | { kind: 'keep' }
  /** It reloads `envFile` by itself: left running, and MEDIAN_TOOLS_URL stays out of its environment. */
  | { kind: 'reloads'; server: EnvReloadingDevServer; envFile: string };

export interface UrlChangeDecision {
  mode: UrlChangeMode;
  /** Said once, at the dev server's first start. */
  note?: string;
}

/** package.json's scripts in `cwd`; none when it is missing or not JSON. */
async function readScripts(cwd: string): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(cwd, 'package.json'), 'utf8'));
    const scripts = (parsed as { scripts?: unknown } | null)?.scripts;
    return typeof scripts === 'object' && scripts !== null ? (scripts as Record<string, unknown>) : {};
  } catch {
    return {}; // no package.json (or not JSON): the command alone decides
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
  const server = recogniseEnvReloadingDevServer(options.command, await readScripts(options.cwd));
  if (!server) return { mode: { kind: 'restart' } };
  if (envFile === null || !isEnvFileReloadedBy(server, envFile, options.cwd)) {
    const where = envFile === null ? 'median-dev writes no env file (--no-env-file)' : `${envFile} is not one of its env files (${server.envFiles.join(', ')} beside package.json)`;
    return { mode: { kind: 'restart' }, note: `${server.name} reloads its env files by itself, but ${where}: it is restarted when the tunnel URL changes.` };
  }
  const file = basename(envFile);
  // A file it reads before ours that sets MEDIAN_TOOLS_URL wins over ours on every reload: only a restart (the URL in its environment) gets through.
  const earlier = await earlierFileSettingToolsUrl(server, envFile);
  if (earlier) {
    return { mode: { kind: 'restart' }, note: `${server.name} reloads ${file} by itself, but ${earlier} also sets MEDIAN_TOOLS_URL and wins over ${file}: it is restarted when the tunnel URL changes. Remove MEDIAN_TOOLS_URL from ${earlier} to keep it running.` };
  }
  return {
    mode: { kind: 'reloads', server, envFile },
    note: `${server.name} reloads ${file} by itself: it keeps running when the tunnel URL changes, and MEDIAN_TOOLS_URL stays out of its environment so the reloaded value wins (--restart-on-url-change always restarts it instead).`,
  };
}

/** The first of the server's env files read before `envFile` (same folder) that sets MEDIAN_TOOLS_URL. */
async function earlierFileSettingToolsUrl(server: EnvReloadingDevServer, envFile: string): Promise<string | undefined> {
  const earlier = server.envFiles.slice(0, server.envFiles.indexOf(basename(envFile)));
  for (const name of earlier) {
    const vars = await readEnvFile(join(dirname(envFile), name)).catch(() => ({}) as Record<string, string>);
    if (vars.MEDIAN_TOOLS_URL !== undefined) return name;
  }
  return undefined;
}
