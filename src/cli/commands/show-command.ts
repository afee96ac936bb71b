import type { CallRecord } from '../../median/call-record.js';
import { createCallStore, type CallStore } from '../../recorder/call-store.js';
import { toCurl } from '../../recorder/curl.js';
import { resolveToolSecret } from '../../median/key.js';
import { missingKeyHint } from '../../config/env-cascade.js';
import { UserError } from '../../shared/errors.js';
import { safeLine } from '../../shared/output-sanitiser.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { pastableCommand } from '../command-line.js';
import { loadConfig } from '../load-config.js';
import { saySkippedLines } from '../say-skipped.js';
import { formatRecord } from '../format-record.js';
import { createStyle, formatTable, styleVerdict, type Style } from '../terminal-style.js';
import { describeReplayHow, summarizeReplay, type ReplaySummary } from '../../replay/replay-summary.js';
import { diffResponses } from '../../median/response-diff.js';

export async function runShow(id: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const store = createCallStore(config.dataDir);
  // A toolCallId names the call the agent made (the original); a replay is named by its record id.
  // Shown as it is, with its replays: both found in one read of the call index.
  const isPlain = options.curl !== true && options.diff !== true;
  const found = await (isPlain ? store.findWithReplays(id) : store.findByToolCallId(id).then((record) => ({ record, replays: [] }))).finally(() =>
    saySkippedLines(store, config.dataDir, io),
  );
  const { record } = found;
  if (options.curl === true) {
    if (!config.medianKey && !config.toolSecret) {
      throw new UserError('missing_key', 'A curl command has to be signed, and no MEDIAN_KEY is set.', {
        hint: missingKeyHint(config.envFile),
      });
    }
    const secret = resolveToolSecret({ medianKey: config.medianKey, toolSecret: config.toolSecret });
    writeLine(io.stdout, toCurl(record, { url: `${config.target}${config.route}`, secret, allowUnsignedOriginal: options.allowUnsignedOriginal === true }));
    return;
  }
  if (options.diff === true) {
    const { original, replay } = await diffPair(store, id, record, (words) => pastableCommand(io, config, words));
    const diff = diffResponses(original, replay);
    if (config.json) writeJson(io, diff);
    else writeLine(io.stdout, diff.text);
    return;
  }
  const replays = record.kind === 'tool-call' ? found.replays.map((r) => summarizeReplay(record, r)) : [];
  if (config.json) {
    writeJson(io, replays.length > 0 ? { ...record, replays } : record);
    return;
  }
  const style = createStyle(useColor(io));
  writeLine(io.stdout, formatRecord(record, style));
  if (replays.length > 0) writeLine(io.stdout, `\n${formatReplays(replays, style, pastableCommand(io, config, ['show', replays.at(-1)!.id, '--diff']))}`);
}

/**
 * What `--diff` compares: a replay against its original; for an original
 * (a toolCallId names one), its newest replay against it.
 */
async function diffPair(store: CallStore, id: string, record: CallRecord, pastable: (words: string[]) => string): Promise<{ original: CallRecord; replay: CallRecord }> {
  if (record.replayOf) {
    const original = await store.get(record.replayOf);
    if (!original) {
      throw new UserError('original_not_found', `The original call ${record.replayOf} is no longer in the store (rotated out).`);
    }
    return { original, replay: record };
  }
  const newest = (await store.replaysOf(record.id)).at(-1);
  if (!newest) {
    throw new UserError('not_a_replay', `${id} has not been replayed, so there is nothing to compare it with.`, {
      hint: `Replay it first (${pastable(['replay', record.toolCallId || record.id])}), or pass a replay's record id (calls marked ↻ in \`${pastable(['calls'])}\`).`,
    });
  }
  return { original: record, replay: newest };
}

function formatReplays(replays: ReplaySummary[], style: Style, newestDiff: string): string {
  const rows = replays.map((r) => [
    r.receivedAt.replace('T', ' ').slice(0, 19),
    safeLine(describeReplayHow(r)),
    `${r.status ?? '—'} ${styleVerdict(style, r.verdict)}`,
    style.dim(r.id),
  ]);
  return `${style.bold(`Replays (${replays.length})`)}\n${formatTable(['WHEN', 'HOW', 'OUTCOME', 'RECORD'], rows, style)}\n${style.dim(
    `Compare the newest with the original: ${newestDiff}`,
  )}`;
}
