import { clashAdvice } from '../../endpoints/clash-advice.js';
import { classifyEndpoints, type ClassifiedEndpoint } from '../../endpoints/classify-endpoints.js';
import { OWNER_LABELS } from '../../shared/endpoint-owner.js';
import { parseClash } from '../../endpoints/clash-message.js';
import { syncFix } from '../../median/sync-fixes.js';
import { UserError } from '../../shared/errors.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { callMedian, requireApiClient } from '../median-api.js';
import { createStyle, formatTable, type Style } from '../terminal-style.js';
import { createTerminalPrompt } from '../terminal-prompt.js';

function marks(e: ClassifiedEndpoint, style: Style): string {
  const out: string[] = [];
  if (e.isCurrent) out.push(style.green('this project'));
  else if (e.isStale) out.push(style.yellow('stale (this project’s old tunnel URL)'));
  else if (e.owner === 'production') out.push(style.bold(OWNER_LABELS.production));
  else out.push(style.dim(OWNER_LABELS['dev-tunnel']));
  if (e.clashesWithCurrent) out.push(style.red('clashes with this project'));
  return out.join(', ');
}

/** The hostname a user types to confirm removing an endpoint that may be a teammate's. */
function hostnameOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    // Not a URL: the whole text is its name.
    return url;
  }
}

function statusText(e: ClassifiedEndpoint, style: Style): string {
  if (e.status === 'synced') return style.green('synced');
  if (e.status === 'failed') return style.red('failed');
  return style.yellow(e.status);
}

async function loadEndpoints(options: Record<string, unknown>, io: CliIo) {
  const config = await loadConfig(options, io);
  const api = requireApiClient(config, io.clock);
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
  writeLine(io.stdout, formatTable(['ID', 'URL', 'STATUS', 'TOOLS ON', 'WHOSE'], rows, style));
  for (const e of classified.filter((x) => x.error)) {
    writeLine(io.stdout, `\n${style.bold(e.id)} ${style.red(`Sync failed: ${e.error}`)}`);
    const clash = e.isCurrent ? parseClash(e.error) : undefined;
    const other = clash ? classified.find((x) => x.url === clash.otherUrl) : undefined;
    const fix = clash ? clashAdvice({ tool: clash.tool, otherUrl: clash.otherUrl, otherOwner: other?.owner }) : syncFix(e.error);
    if (fix) writeLine(io.stdout, `  → ${fix}`);
  }
  const production = classified.filter((e) => e.owner === 'production');
  if (production.length > 0) {
    writeLine(io.stdout, `\n${style.yellow('!')} This organisation serves production (or a preview): ${production.map((e) => e.url).join(', ')}. Develop with a key from a separate development organisation (Settings → API there).`);
  }
  const stale = classified.filter((e) => e.isStale).length;
  if (stale > 0) writeLine(io.stdout, `\n${stale} stale endpoint${stale === 1 ? '' : 's'} of this project: \`median-dev endpoints prune\` removes ${stale === 1 ? 'it' : 'them'}.`);
}

export async function runPrune(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const { config, api, classified } = await loadEndpoints(options, io);
  const style = createStyle(useColor(io));
  const provable = classified.filter((e) => e.isStale);
  // Another dev tunnel (most likely a teammate's) is offered only when it clashes with this project or its sync failed, and goes only on its name typed back.
  const devTunnels = classified.filter((e) => e.owner === 'dev-tunnel' && (e.clashesWithCurrent || e.status === 'failed'));
  // Production and previews are never offered: removing one takes the live agent's tools away from customers.
  const production = classified.filter((e) => e.owner === 'production' && e.clashesWithCurrent);
  const report = (removed: string[], kept: string[], resynced?: string) =>
    writeJson(io, { removed, kept, neverRemoved: production.map((e) => ({ id: e.id, url: e.url, owner: e.owner })), ...(resynced ? { resynced } : {}) });
  for (const e of production) {
    if (!config.json) writeLine(io.stdout, `${style.dim('kept')} ${e.id} ${e.url} (${OWNER_LABELS.production}: median-dev never removes it; use a development organisation’s key, or rename the clashing tool)`);
  }
  if (provable.length === 0 && devTunnels.length === 0) {
    if (config.json) report([], []);
    else writeLine(io.stdout, 'Nothing to prune: no stale endpoints of this project and no failing or clashing dev tunnels.');
    return;
  }
  const isYes = options.yes === true;
  if (!isYes && !io.isInteractive && provable.length > 0) {
    throw new UserError('confirmation_needed', `Would remove ${provable.length} stale endpoint${provable.length === 1 ? '' : 's'} of this project: ${provable.map((e) => e.url).join(', ')}.`, {
      hint: 'Pass --yes to remove them (there is no terminal to ask in).',
    });
  }
  const prompt = createTerminalPrompt(io);
  const removed: string[] = [];
  const kept: string[] = [];
  const remove = async (e: ClassifiedEndpoint) => {
    await callMedian(`Removing ${e.id} failed`, () => api.removeEndpoint(e.id));
    removed.push(e.id);
    if (!config.json) writeLine(io.stdout, `${style.green('removed')} ${e.id} ${e.url}`);
  };
  try {
    const ask = async (question: string) => (prompt ? /^y(es)?$/i.test((await prompt.ask(`${question} [y/N] `)).trim()) : false);
    for (const e of provable) {
      const ok = isYes || (await ask(`Remove ${e.id} ${e.url} (this project’s old tunnel URL)?`));
      if (!ok) {
        kept.push(e.id);
        continue;
      }
      await remove(e);
    }
    for (const e of devTunnels) {
      const name = hostnameOf(e.url);
      const why = e.clashesWithCurrent ? 'serves tools that clash with this project’s' : `fails to sync (${e.error ?? e.status})`;
      const answer = prompt
        ? (await prompt.ask(`${e.id} ${e.url} is ${OWNER_LABELS['dev-tunnel']} and ${why}. Removing it takes its tools away from whoever runs it. Type its name (${name}) to remove it, or press Enter to keep it: `)).trim()
        : '';
      if (answer !== name) {
        kept.push(e.id);
        if (!config.json) writeLine(io.stdout, `${style.dim('kept')} ${e.id} ${e.url}${prompt ? '' : ` (${OWNER_LABELS['dev-tunnel']}: run in a terminal to confirm it by name; --yes never removes it)`}`);
        continue;
      }
      await remove(e);
    }
  } finally {
    prompt?.close();
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
  if (config.json) report(removed, kept, resynced);
}
