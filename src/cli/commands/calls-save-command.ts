import { access, readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { CallRecord } from '../../median/call-record.js';
import { secretsToMask } from '../../median/key.js';
import { createCallStore } from '../../recorder/call-store.js';
import { savedCallFromRecord } from '../../saved-calls/save-from-record.js';
import { toolCallsFromHar } from '../../saved-calls/har-import.js';
import type { SavedCall } from '../../saved-calls/saved-call.js';
import { UserError, errorCode } from '../../shared/errors.js';
import { safeLine } from '../../shared/output-sanitiser.js';
import { writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { createOutputMasker } from '../output-masker.js';
import { callsDirOf, shownPath, writeSavedCall } from '../saved-call-files.js';

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function recordsFromHarFile(file: string, cwd: string): Promise<{ records: CallRecord[]; skipped: number }> {
  const path = isAbsolute(file) ? file : resolve(cwd, file);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UserError('invalid_har', `Cannot read ${file} as a HAR file (${errorCode(error) ?? (error as Error).message}).`, {
      hint: 'Pass a file written by `median-dev export --har`.',
    });
  }
  return toolCallsFromHar(json, file);
}

/**
 * `median-dev calls save <id…>`: recorded calls (or a HAR's tool calls, with
 * `--from-har`) become files under `median-calls/`, meant to be committed and
 * run by `median-dev test`.
 */
export async function runCallsSave(ids: string[], options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const name = typeof options.as === 'string' ? options.as : undefined;
  const harFile = typeof options.fromHar === 'string' ? options.fromHar : undefined;
  if (ids.length === 0 && harFile === undefined) {
    throw new UserError('no_saved_calls', 'Name the calls to save: a toolCallId, a record id (rec_…) or a unique prefix of either.', {
      hint: 'Find them with `median-dev calls`, or pass --from-har <file>.',
      exitCode: 2,
    });
  }
  let records: CallRecord[] = [];
  let skipped = 0;
  if (harFile !== undefined) ({ records, skipped } = await recordsFromHarFile(harFile, io.cwd));
  const store = createCallStore(config.dataDir);
  for (const id of ids) records.push(await store.findByToolCallId(id));
  if (name !== undefined && records.length !== 1) {
    throw new UserError('invalid_saved_name', `--as names one saved call, and ${records.length} were given.`, { exitCode: 2 });
  }
  const dir = callsDirOf(options, io.cwd);
  const mask = createOutputMasker(secretsToMask({ medianKey: config.medianKey, toolSecret: config.toolSecret }));
  const keepVisitor = options.keepVisitor === true;
  const saved: Array<{ saved: SavedCall; path: string }> = [];
  // Check every call first, so a bad one saves none.
  for (const record of records) {
    const one = savedCallFromRecord(record, { keepVisitor, ...(name !== undefined ? { name } : {}) });
    const path = join(dir, `${one.name}.json`);
    if (saved.some((s) => s.path === path) || (options.force !== true && (await exists(path)))) {
      throw new UserError('saved_call_exists', `${shownPath(path, io.cwd)} exists already.`, { hint: 'Pass --as <name> for another name, or --force to replace it.' });
    }
    saved.push({ saved: one, path });
  }
  for (const { saved: one, path } of saved) await writeSavedCall(path, one, mask.text);
  if (config.json) {
    writeJson(io, { saved: saved.map(({ saved: one, path }) => ({ name: one.name, file: shownPath(path, io.cwd), tool: one.call.tool, verdict: one.expect.verdict })), skipped });
    return;
  }
  for (const { saved: one, path } of saved) {
    writeLine(io.stdout, `Saved ${safeLine(one.call.tool)} (${one.expect.verdict}) → ${safeLine(shownPath(path, io.cwd))}`);
  }
  if (skipped > 0) writeLine(io.stderr, `median-dev: ${skipped} HAR entr${skipped === 1 ? 'y was' : 'ies were'} not a tool call and ${skipped === 1 ? 'was' : 'were'} left out.`);
  if (saved.length > 0) {
    const visitorNote = keepVisitor ? 'the visitor kept as recorded' : 'visitor data replaced by placeholders (--keep-visitor keeps it)';
    writeLine(io.stdout, `No key, signature or cookie is in ${saved.length === 1 ? 'it' : 'them'}; ${visitorNote}. Run them with \`median-dev test\`.`);
  }
}
