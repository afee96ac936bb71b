import { createCallStore, type CallStore } from '../../recorder/call-store.js';
import { parseFilter, recordMatches } from '../../median/record-filter.js';
import { verdictLabel } from '../../median/approved-run.js';
import type { CallRecord } from '../../median/call-record.js';
import type { VerdictKind } from '../../median/verdict-types.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig, parseCount } from '../load-config.js';
import { saySkippedLines } from '../say-skipped.js';
import { safeJson, safeStrings } from '../../shared/output-sanitiser.js';
import { columnTitles, formatRowSegments } from '../../tui/format-row.js';
import { createStyle, formatTable, styleColoured, styleSignature, styleVerdict, type Style } from '../terminal-style.js';
import { parseTimeFlag } from '../time-flag.js';

const HEADERS = ['TIME', 'TOOL', 'STATUS', 'VERDICT', 'MS', 'SIGNATURE', 'TOOL CALL ID'];
/** `calls -f` rows in a pipe: wide enough for whole call ids. */
const FOLLOW_WIDTH = 120;

/** The filter words (the TUI's `/` language), `--since`/`--until`, as one predicate. */
function callPredicate(query: string[], options: Record<string, unknown>): (record: CallRecord) => boolean {
  const filter = parseFilter([...query, typeof options.filter === 'string' ? options.filter : ''].join(' '));
  const since = parseTimeFlag(options.since, '--since');
  const until = parseTimeFlag(options.until, '--until');
  return (record) => {
    if (filter && !recordMatches(record, filter)) return false;
    if (since === undefined && until === undefined) return true;
    const at = Date.parse(record.receivedAt);
    return (since === undefined || at >= since) && (until === undefined || at <= until);
  };
}

function rowOf(r: CallRecord, style: Style): string[] {
  return [
    r.receivedAt.slice(11, 23),
    (r.tool ?? style.dim(r.kind)) + (r.repeats !== undefined && r.repeats > 1 ? style.yellow(` ×${r.repeats}`) : ''),
    String(r.response?.status ?? '—'),
    styleVerdict(style, r.verdict.kind, verdictLabel(r.verdict)),
    r.durationMs === null ? '—' : String(Math.round(r.durationMs)),
    styleSignature(style, r.signature),
    (r.toolCallId || style.dim(r.id)) + (r.replayOf ? style.cyan(' ↻') : ''),
  ];
}

export async function runCalls(query: string[], options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const store = createCallStore(config.dataDir);
  const where = callPredicate(query, options);
  const records = await store.list({
    ...(typeof options.tool === 'string' ? { tool: options.tool } : {}),
    ...(typeof options.verdict === 'string' ? { verdict: options.verdict as VerdictKind } : {}),
    where,
    limit: parseCount(options.limit, '--limit') ?? 50,
    // Newest first as the calls came in, not as they finished (a slow call is written last).
    order: 'received',
  });
  saySkippedLines(store, config.dataDir, io);
  const style = createStyle(useColor(io));
  if (options.follow === true) {
    await follow(store, records, { dataDir: config.dataDir, where, json: config.json, style, io, tool: options.tool, verdict: options.verdict });
    return;
  }
  if (config.json) {
    writeJson(io, records);
    return;
  }
  if (records.length === 0) {
    writeLine(io.stdout, `No calls recorded in ${config.dataDir} match. Start the daemon with \`median-dev start\`, or send one with \`median-dev call <tool>\`.`);
    return;
  }
  // Tool names and toolCallIds are whatever a request said: one line each, controls escaped.
  writeLine(io.stdout, formatTable(HEADERS, safeStrings(records).map((r) => rowOf(r, style)), style));
}

/**
 * `calls --follow`: the matching calls so far, oldest first, then each new one
 * as it is recorded (like `tail -f`) until Ctrl-C. `--json`: one record a line.
 */
async function follow(
  store: CallStore,
  first: CallRecord[],
  options: { dataDir: string; where: (record: CallRecord) => boolean; json: boolean; style: Style; io: CliIo; tool: unknown; verdict: unknown },
): Promise<void> {
  const { io, style } = options;
  const seen = new Set<string>();
  // Rows come one at a time, so the columns have the terminal UI's fixed widths (a pipe gets 120 columns: whole ids).
  const width = Math.max(80, (io.stdout as { columns?: number }).columns ?? FOLLOW_WIDTH);
  const print = (record: CallRecord) => {
    seen.add(record.id);
    if (options.json) writeLine(io.stdout, safeJson(record));
    else writeLine(io.stdout, styleColoured(style, formatRowSegments(safeStrings([record])[0]!, width)).trimEnd());
  };
  if (!options.json) writeLine(io.stdout, `${styleColoured(style, columnTitles(width)).trimEnd()}   ${style.dim('(following: Ctrl-C stops)')}`);
  // Everything recorded so far counts as seen, matching or not.
  for (const record of await store.list({ limit: 1_000 })) seen.add(record.id);
  for (const record of [...first].reverse()) print(record);
  let isStopped = false;
  // Following keeps the process alive until Ctrl-C: the watcher (and its fallback timer) are kept.
  // The watcher (chokidar) loads only when following: a plain `calls` never loads it.
  const { watchRecordArrivals } = await import('../record-arrivals.js');
  const arrivals = watchRecordArrivals(options.dataDir);
  const unsubscribe = io.onSignal(() => {
    isStopped = true;
    arrivals.wake();
  });
  try {
    while (!isStopped) {
      await arrivals.next();
      if (isStopped) break;
      const recent = await store.list({ limit: 200 });
      const fresh = recent.filter((r) => !seen.has(r.id)).reverse();
      for (const record of fresh) {
        seen.add(record.id);
        const isWanted =
          options.where(record) &&
          (typeof options.tool !== 'string' || record.tool === options.tool) &&
          (typeof options.verdict !== 'string' || record.verdict.kind === options.verdict);
        if (isWanted) print(record);
      }
    }
  } finally {
    unsubscribe();
    await arrivals.close();
  }
}
