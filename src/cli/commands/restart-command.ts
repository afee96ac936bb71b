import { connectToDaemon } from '../../control/control-client.js';
import { writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';

/** Restarts the child command of the running daemon (`r` in the TUI does the same). */
export async function runRestart(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const client = await connectToDaemon(config.dataDir);
  try {
    await client.send({ command: 'restart-child' }, { timeoutMs: 30_000 });
  } finally {
    await client.close();
  }
  writeLine(io.stdout, 'Restarted the dev server.');
}
