import { isAbsolute, resolve } from 'node:path';
import type { CallRecord } from '../../median/call-record.js';
import { createCallStore } from '../../recorder/call-store.js';
import { toHar } from '../../recorder/har.js';
import { savedCallAsRecord } from '../../saved-calls/saved-call-record.js';
import { UserError, errorCode } from '../../shared/errors.js';
import { writeFileAtomic } from '../../shared/private-files.js';
import { safeJson } from '../../shared/output-sanitiser.js';
import { writeLine, type CliIo } from '../cli-io.js';
import { loadConfig, parseCount } from '../load-config.js';
import { saySkippedLines } from '../say-skipped.js';
import { callsDirOf, findSavedCallFiles, loadSavedCalls } from '../saved-call-files.js';
import { VERSION } from '../version.js';

export async function runExport(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const file = String(options.har);
  const isStdout = file === '-';
  const path = isAbsolute(file) ? file : resolve(io.cwd, file);
  const limit = parseCount(options.limit, '--limit') ?? Number.MAX_SAFE_INTEGER;
  let records: CallRecord[];
  if (options.saved === true) {
    // The saved calls (median-calls/) as HAR, for Polly.js and devtools: their saved answers, in file order.
    const saved = await loadSavedCalls(await findSavedCallFiles([], callsDirOf(options, io.cwd), io.cwd), io.cwd);
    records = saved
      .map((s) => savedCallAsRecord(s.saved, { path: config.route }))
      .filter((r) => typeof options.tool !== 'string' || r.tool === options.tool)
      .slice(0, limit)
      .reverse();
  } else {
    const store = createCallStore(config.dataDir);
    // --limit keeps the newest calls by when they came in (a slow call is written last).
    records = await store.list({ ...(typeof options.tool === 'string' ? { tool: options.tool } : {}), limit, order: 'received' });
    saySkippedLines(store, config.dataDir, io);
  }
  const har = toHar(records.slice().reverse(), {
    creator: { name: 'median-dev', version: VERSION },
    baseUrl: config.state.toolsUrl ? new URL(config.state.toolsUrl).origin : config.target,
    ...(options.saved === true ? { isOrderKept: true } : {}),
  });
  const text = `${safeJson(har, 2)}\n`;
  if (isStdout) {
    // `--har -`: standard output, as curl -o - and tar -f - mean.
    io.stdout.write(text);
    return;
  }
  try {
    // A new file replaces the old one, so an existing 0644 file becomes 0600 too (SECURITY.md).
    await writeFileAtomic(path, text, { mode: 0o600, followSymlinks: true });
  } catch (error) {
    throw new UserError('export_write_failed', `Cannot write ${path} (${errorCode(error) ?? String(error)}).`, {
      hint: 'Pick a path in a folder you can write to.',
      cause: error,
    });
  }
  writeLine(io.stderr, `Wrote ${records.length} call${records.length === 1 ? '' : 's'} to ${path} (HAR 1.2: open it in your browser devtools' Network tab).`);
}
