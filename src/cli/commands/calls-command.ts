import { createCallStore } from '../../recorder/index.js';
import type { VerdictKind } from '../../median/index.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig, parseCount } from '../load-config.js';
import { saySkippedLines } from '../say-skipped.js';
import { safeStrings } from '../../shared/output-sanitiser.js';
import { createStyle, formatTable, styleSignature, styleVerdict } from '../terminal-style.js';

export async function runCalls(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const store = createCallStore(config.dataDir);
  const records = await store.list({
    ...(typeof options.tool === 'string' ? { tool: options.tool } : {}),
    ...(typeof options.verdict === 'string' ? { verdict: options.verdict as VerdictKind } : {}),
    limit: parseCount(options.limit, '--limit') ?? 50,
  });
  saySkippedLines(store, config.dataDir, io);
  if (config.json) {
    writeJson(io, records);
    return;
  }
  if (records.length === 0) {
    writeLine(io.stdout, `No calls recorded in ${config.dataDir} yet. Start the daemon with \`median-dev start\`, or send one with \`median-dev call <tool>\`.`);
    return;
  }
  const style = createStyle(useColor(io));
  // Tool names and toolCallIds are whatever a request said: one line each, controls escaped.
  const rows = safeStrings(records).map((r) => [
    r.receivedAt.slice(11, 23),
    r.tool ?? style.dim(r.kind),
    String(r.response?.status ?? '—'),
    styleVerdict(style, r.verdict.kind),
    r.durationMs === null ? '—' : String(Math.round(r.durationMs)),
    styleSignature(style, r.signature),
    (r.toolCallId || style.dim(r.id)) + (r.replayOf ? style.cyan(' ↻') : ''),
  ]);
  writeLine(io.stdout, formatTable(['TIME', 'TOOL', 'STATUS', 'VERDICT', 'MS', 'SIGNATURE', 'TOOL CALL ID'], rows, style));
}
