import { createCallStore, toCurl } from '../../recorder/index.js';
import { resolveToolSecret } from '../../median/index.js';
import { missingKeyHint } from '../../config/index.js';
import { UserError } from '../../shared/errors.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { saySkippedLines } from '../say-skipped.js';
import { formatRecord } from '../format-record.js';
import { createStyle } from '../terminal-style.js';
import { diffResponses } from '../../replay/index.js';

export async function runShow(id: string, options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const store = createCallStore(config.dataDir);
  const record = await store.findByToolCallId(id).finally(() => saySkippedLines(store, config.dataDir, io));
  if (options.curl === true) {
    if (!config.medianKey && !config.toolSecret) {
      throw new UserError('missing_key', 'A curl command has to be signed, and no MEDIAN_KEY is set.', {
        hint: missingKeyHint(config.envFile),
      });
    }
    const secret = resolveToolSecret({ medianKey: config.medianKey, toolSecret: config.toolSecret });
    writeLine(io.stdout, toCurl(record, { url: `${config.target}${config.route}`, secret }));
    return;
  }
  if (options.diff === true) {
    if (!record.replayOf) {
      throw new UserError('not_a_replay', `${id} is not a replay, so there is no original to compare with.`, {
        hint: 'Pass the toolCallId or record id of a replay (calls marked ↻ in `median-dev calls`).',
      });
    }
    const original = await store.get(record.replayOf);
    if (!original) {
      throw new UserError('original_not_found', `The original call ${record.replayOf} is no longer in the store (rotated out).`);
    }
    const diff = diffResponses(original, record);
    if (config.json) writeJson(io, diff);
    else writeLine(io.stdout, diff.text);
    return;
  }
  if (config.json) writeJson(io, record);
  else writeLine(io.stdout, formatRecord(record, createStyle(useColor(io))));
}
