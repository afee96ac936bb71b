import { connectToDaemon } from '../../control/index.js';
import { openInBrowser } from '../../platform/index.js';
import { writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';

/**
 * Opens the running daemon's browser inspector: asks the daemon for a fresh
 * one-time link (a session for one browser) and opens it, or prints it with
 * --no-open.
 */
export async function runInspect(options: Record<string, unknown>, io: CliIo): Promise<void> {
  const config = await loadConfig(options, io);
  const client = await connectToDaemon(config.dataDir);
  let answer: { url: string; link: string };
  try {
    answer = (await client.send({ command: 'inspector-link' }, { timeoutMs: 10_000 })) as { url: string; link: string };
  } finally {
    await client.close();
  }
  const shouldOpen = options.open !== false;
  const opened = shouldOpen ? await openInBrowser(answer.link, process.platform, io.env.BROWSER) : false;
  if (options.json === true) {
    writeJson(io, { url: answer.url, link: answer.link, opened });
    return;
  }
  if (opened) {
    writeLine(io.stdout, `Opened the inspector in your browser: ${answer.url}`);
    return;
  }
  if (shouldOpen) writeLine(io.stderr, 'Could not start a browser; open this link yourself (it works once):');
  writeLine(io.stdout, answer.link);
}
