import { connectToDaemon } from '../../control/control-client.js';
import { openInBrowser } from '../../platform/open-browser.js';
import { writeForwardingPage } from '../../platform/forwarding-page.js';
import { writeJson, writeLine, type CliIo } from '../cli-io.js';
import { loadConfig } from '../load-config.js';

/**
 * Opens the running daemon's browser inspector: asks the daemon for a fresh
 * one-time link (a session for one browser) and opens it, or prints it with
 * --no-open. The browser opener is given the path of a 0600 page in the data
 * dir that forwards to the link, never the link itself: any local user can
 * read a command line and would spend the token first. The link is printed
 * for this terminal only.
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
  const opened = shouldOpen ? await openInBrowser(await writeForwardingPage(config.dataDir, answer.link), process.platform, io.env.BROWSER) : false;
  if (options.json === true) {
    writeJson(io, { url: answer.url, link: answer.link, opened });
    return;
  }
  if (opened) {
    writeLine(io.stdout, `Opened the inspector in your browser: ${answer.url}`);
    writeLine(io.stdout, `If no browser came up, open this link yourself (it works once): ${answer.link}`);
    return;
  }
  if (shouldOpen) writeLine(io.stderr, 'Could not start a browser; open this link yourself (it works once):');
  writeLine(io.stdout, answer.link);
}
