import { writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { createCallStore, toHar } from '../../recorder/index.js';
import { UserError, errorCode } from '../../shared/errors.js';
import { writeLine, type CliIo } from '../cli-io.js';
import { loadConfig, parseCount } from '../load-config.js';
import { VERSION } from '../version.js';

export async function runExport(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const file = String(options.har);
  const path = isAbsolute(file) ? file : resolve(io.cwd, file);
  const records = await createCallStore(config.dataDir).list({
    ...(typeof options.tool === 'string' ? { tool: options.tool } : {}),
    limit: parseCount(options.limit, '--limit') ?? Number.MAX_SAFE_INTEGER,
  });
  const har = toHar(records.slice().reverse(), {
    creator: { name: 'median-dev', version: VERSION },
    baseUrl: config.state.toolsUrl ? new URL(config.state.toolsUrl).origin : config.target,
  });
  try {
    await writeFile(path, `${JSON.stringify(har, null, 2)}\n`, { mode: 0o600 });
  } catch (error) {
    throw new UserError('export_write_failed', `Cannot write ${path} (${errorCode(error) ?? String(error)}).`, {
      hint: 'Pick a path in a folder you can write to.',
      cause: error,
    });
  }
  writeLine(io.stderr, `Wrote ${records.length} call${records.length === 1 ? '' : 's'} to ${path} (HAR 1.2: open it in your browser devtools' Network tab).`);
}
