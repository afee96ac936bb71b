import { createInterface } from 'node:readline/promises';
import { classifyEndpoints, type ClassifiedEndpoint } from '../../endpoints/index.js';
import { UserError } from '../../shared/errors.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { callMedian, requireApiClient } from '../median-api.js';
import { createStyle, formatTable, type Style } from '../terminal-style.js';

function marks(e: ClassifiedEndpoint, style: Style): string {
  const out: string[] = [];
  if (e.isCurrent) out.push(style.green('this project'));
  else if (e.isStale) out.push(style.yellow('stale (this project’s old tunnel URL)'));
  if (e.clashesWithCurrent) out.push(style.red('clashes with this project'));
  if (!e.isThisProject && e.isTunnelUrl) out.push(style.dim('tunnel URL'));
  return out.join(', ');
}

function statusText(e: ClassifiedEndpoint, style: Style): string {
  if (e.status === 'synced') return style.green('synced');
  if (e.status === 'failed') return style.red('failed');
  return style.yellow(e.status);
}

async function loadEndpoints(options: Record<string, unknown>, io: CliIo) {
  const config = await loadConfig(options, io);
  const api = requireApiClient(config);
  const endpoints = await callMedian('Listing endpoints failed', () => api.listEndpoints());
  const classified = classifyEndpoints(endpoints, config.state);
  return { config, api, classified };
}

export async function runEndpoints(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const { config, classified } = await loadEndpoints(options, io);
  if (config.json) {
    writeJson(io, classified);
    return;
  }
  const style = createStyle(useColor(io));
  if (classified.length === 0) {
    writeLine(io.stdout, 'No tool endpoints are connected. `median-dev start` connects this project’s.');
    return;
  }
  const rows = classified.map((e) => [
    e.id,
    e.url,
    statusText(e, style),
    `${e.tools.filter((t) => t.enabled).length}/${e.tools.length}`,
    marks(e, style),
  ]);
  writeLine(io.stdout, formatTable(['ID', 'URL', 'STATUS', 'TOOLS ON', ''], rows, style));
  for (const e of classified.filter((x) => x.error)) writeLine(io.stdout, `\n${style.bold(e.id)} ${style.red(`Sync failed: ${e.error}`)}`);
  const stale = classified.filter((e) => e.isStale).length;
  if (stale > 0) writeLine(io.stdout, `\n${stale} stale endpoint${stale === 1 ? '' : 's'} of this project: \`median-dev endpoints prune\` removes ${stale === 1 ? 'it' : 'them'}.`);
}

export async function runPrune(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const { config, api, classified } = await loadEndpoints(options, io);
  const style = createStyle(useColor(io));
  const provable = classified.filter((e) => e.isStale);
  // Endpoints median-dev cannot prove are this project's are only removed on an explicit yes, one by one.
  const foreign = classified.filter((e) => !e.isThisProject && e.clashesWithCurrent);
  if (provable.length === 0 && foreign.length === 0) {
    if (config.json) writeJson(io, { removed: [], kept: [] });
    else writeLine(io.stdout, 'Nothing to prune: no stale endpoints of this project and no clashes.');
    return;
  }
  const isYes = options.yes === true;
  if (!isYes && !io.isInteractive && provable.length > 0) {
    throw new UserError('confirmation_needed', `Would remove ${provable.length} stale endpoint${provable.length === 1 ? '' : 's'} of this project: ${provable.map((e) => e.url).join(', ')}.`, {
      hint: 'Pass --yes to remove them (there is no terminal to ask in).',
    });
  }
  const readline = io.isInteractive ? createInterface({ input: io.stdin, output: io.stderr }) : undefined;
  const removed: string[] = [];
  const kept: string[] = [];
  try {
    const ask = async (question: string) => (readline ? /^y(es)?$/i.test((await readline.question(`${question} [y/N] `)).trim()) : false);
    for (const e of provable) {
      const ok = isYes || (await ask(`Remove ${e.id} ${e.url} (this project’s old tunnel URL)?`));
      if (!ok) {
        kept.push(e.id);
        continue;
      }
      await callMedian(`Removing ${e.id} failed`, () => api.removeEndpoint(e.id));
      removed.push(e.id);
      if (!config.json) writeLine(io.stdout, `${style.green('removed')} ${e.id} ${e.url}`);
    }
    for (const e of foreign) {
      const ok = await ask(`${e.id} ${e.url} serves tools that clash with this project’s, and median-dev cannot prove it is yours. Remove it?`);
      if (!ok) {
        kept.push(e.id);
        if (!config.json) writeLine(io.stdout, `${style.dim('kept')} ${e.id} ${e.url}${readline ? '' : ' (not yours for sure: run in a terminal to be asked)'}`);
        continue;
      }
      await callMedian(`Removing ${e.id} failed`, () => api.removeEndpoint(e.id));
      removed.push(e.id);
      if (!config.json) writeLine(io.stdout, `${style.green('removed')} ${e.id} ${e.url}`);
    }
  } finally {
    readline?.close();
  }
  // With a clash gone, this project's endpoint can sync now.
  const current = classified.find((e) => e.isCurrent);
  let resynced: string | undefined;
  if (removed.length > 0 && current && current.status !== 'synced') {
    const after = await callMedian('Syncing this project’s endpoint failed', () => api.sync(current.url));
    resynced = after.status;
    if (!config.json) {
      writeLine(io.stdout, after.status === 'synced' ? `${style.green('synced')} ${after.id} ${after.url}` : `${style.red('still failing')} ${after.id}: ${after.error ?? after.status}`);
    }
  }
  if (config.json) writeJson(io, { removed, kept, ...(resynced ? { resynced } : {}) });
}
