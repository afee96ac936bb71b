import { connectToDaemon } from '../../control/control-client.js';
import { UserError, errorCode } from '../../shared/errors.js';
import { useColor, writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';
import { syncFix } from '../../median/sync-fixes.js';
import { callMedian, requireApiClient } from '../median-api.js';
import { QuietFailure } from '../quiet-failure.js';
import { createStyle } from '../terminal-style.js';

/** Asks Median to sync this project's endpoint (through the daemon when it runs, so it shows live). */
export async function runSync(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const api = requireApiClient(config, io.clock);
  const url = config.state.toolsUrl;
  if (!url) {
    throw new UserError('no_tools_url', `This data dir (${config.dataDir}) has no tools URL yet, so there is no endpoint to sync.`, {
      hint: 'Run `median-dev start` first; it connects the endpoint.',
    });
  }
  const client = await connectToDaemon(config.dataDir).catch((error: unknown) => {
    if (errorCode(error) === 'daemon_not_running') return undefined;
    throw error;
  });
  if (client) {
    try {
      await client.send({ command: 'sync' }, { timeoutMs: 60_000 });
    } finally {
      await client.close();
    }
  }
  const endpoint = client
    ? (await callMedian('Reading the endpoint failed', () => api.listEndpoints())).find((e) => e.url === url)
    : await callMedian('The sync failed', () => api.sync(url));
  if (!endpoint) throw new UserError('endpoint_not_found', `No endpoint is connected at ${url}.`, { hint: 'Run `median-dev start` to connect it.' });
  if (config.json) writeJson(io, endpoint);
  else {
    const style = createStyle(useColor(io));
    if (endpoint.status === 'synced') writeLine(io.stdout, `${style.green('synced')} ${endpoint.id} ${endpoint.url} (${endpoint.tools.length} tools)`);
    else {
      writeLine(io.stdout, `${style.red(endpoint.status)} ${endpoint.id} ${endpoint.url}\n  Sync failed: ${endpoint.error ?? '(no reason given)'}`);
      const fix = syncFix(endpoint.error);
      if (fix) writeLine(io.stdout, `  → ${fix}`);
    }
  }
  if (endpoint.status !== 'synced') throw new QuietFailure(1);
}
