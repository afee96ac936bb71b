import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileAtomic } from '../shared/private-files.js';

/** The file `inspect` writes in the data dir; each `inspect` replaces it. */
export const FORWARDING_PAGE_NAME = 'inspector-open.html';

function htmlAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A page that sends the browser on to `link` at once (and shows it as a link if it does not). */
export function forwardingPageHtml(link: string): string {
  const href = htmlAttribute(link);
  return (
    '<!doctype html>\n<html><head><meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n' +
    `<meta http-equiv="refresh" content="0;url=${href}">\n<title>median-dev inspector</title></head>\n` +
    `<body><p>Opening the <a href="${href}" rel="noreferrer">median-dev inspector</a>…</p></body></html>\n`
  );
}

/**
 * Writes the forwarding page for a link that holds a secret (a one-time
 * token) into `dir`, readable by the owner only, and gives back its
 * `file://` URL. What a browser opener is given on its command line is then
 * that path, never the secret: every local user can read a process's
 * arguments (`/proc/<pid>/cmdline`), nobody else can read the file (Jupyter
 * opens its tokened URL the same way).
 */
export async function writeForwardingPage(dir: string, link: string): Promise<string> {
  const path = join(dir, FORWARDING_PAGE_NAME);
  await writeFileAtomic(path, forwardingPageHtml(link), { mode: 0o600 });
  return pathToFileURL(path).href;
}
