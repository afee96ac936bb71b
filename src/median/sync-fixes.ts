import { CONNECT_MESSAGES, SYNC_MESSAGES, sameMessage, straightQuotes } from './messages.js';

/**
 * The docs' "Fix" column of the Sync errors table (tool-errors.txt), matched
 * on the message Median shows after "Sync failed:", with what median-dev does
 * about it where it can. Returns undefined for a message the table does not
 * hold.
 */
const SYNC_FIXES: ReadonlyArray<{ matches: (message: string) => boolean; fix: (message: string) => string }> = [
  {
    matches: (m) => sameMessage(m, SYNC_MESSAGES.refusedSignature),
    fix: () =>
      'Reconnect: the route holds a different key than the one this endpoint is bound to. median-dev opens the route once with MEDIAN_KEY to reconnect it (it does so by itself after this error, and whenever MEDIAN_KEY changes in the env file).',
  },
  {
    matches: (m) => /^The endpoint answered \d{3}\.$/.test(m),
    fix: (m) => {
      const status = m.slice('The endpoint answered '.length, -1);
      const why =
        status === '404'
          ? '404 is usually the wrong path: check --route against the route file’s path.'
          : status === '500'
            ? '500 is often a missing MEDIAN_KEY on the server: put it in the env file and restart the dev server.'
            : 'Any non-2xx fails the sync.';
      return `${why} Check the URL and your server logs.`;
    },
  },
  { matches: (m) => m === SYNC_MESSAGES.notJson, fix: () => 'The URL serves a page, not the route: point it at the route file’s path (--route).' },
  { matches: (m) => m === SYNC_MESSAGES.didNotAnswer, fix: () => 'Check the URL, DNS and that the server is up (the tunnel and your dev server).' },
  { matches: (m) => m.includes("is this deployment's own machine, not yours."), fix: () => 'Use a tunnel (the default), or --public-url with a public https origin.' },
  { matches: (m) => m.startsWith('The endpoint redirected to '), fix: () => 'Use the URL in the message: your server redirects, often apex to www.' },
  { matches: (m) => m === SYNC_MESSAGES.redirected, fix: () => 'Use the final URL, the one the redirect ends at.' },
  { matches: (m) => m === SYNC_MESSAGES.privateAddress, fix: () => 'Use a public address, or a tunnel (the default).' },
  { matches: (m) => m === SYNC_MESSAGES.tooLarge, fix: () => 'The manifest is over 500 KB: cut descriptions or tools.' },
  {
    matches: (m) => /^The tool name ".+" already comes from .+\. Tool names have to be unique across every endpoint\.$/.test(m),
    fix: () => 'Rename one, or remove the old endpoint (only if it is yours: `median-dev endpoints` shows whose it is).',
  },
  { matches: (m) => /^These endpoints would declare \d+ tools together, and the organization limit is \d+\.$/.test(m), fix: () => 'Remove tools or endpoints: an organisation holds 20 tools across all its endpoints.' },
  { matches: (m) => m.endsWith("is one of the agent's own tools. Pick another name."), fix: () => 'Rename the tool.' },
  { matches: (m) => /\.description is over \d+ characters\.$/.test(m), fix: () => 'Shorten the description to 500 characters or fewer.' },
  { matches: (m) => /has \d+ fields, and the most a tool can take is \d+\.$/.test(m), fix: () => 'Split the tool into tools of 20 fields or fewer.' },
  { matches: (m) => /\.inputSchema is over \d+ characters\.$/.test(m), fix: () => 'Shorten the schema: long field descriptions or enums are the usual cause.' },
  { matches: (m) => m.startsWith('The manifest version is '), fix: () => 'Update @mediansh/agent-tools (or Median, whichever is behind).' },
  { matches: (m) => m === SYNC_MESSAGES.couldNotSync, fix: () => 'Sync again: `median-dev sync` (or s in the terminal UI).' },
  { matches: (m) => m === SYNC_MESSAGES.rateLimited, fix: () => 'Wait: manual syncs are limited to 60 an hour, in bursts of 10.' },
  {
    // The manifest's shape (the docs: "Those messages name the field"); the rows above caught the named limits.
    matches: (m) => /^(tools|version)\b/.test(m) || m === 'The manifest has to be a JSON object.',
    fix: () => 'Fix the field the message names: the manifest format is in the tool endpoint reference (`median-dev manifest` lists every problem).',
  },
];

export function syncFix(message: string | null | undefined): string | undefined {
  if (!message) return undefined;
  // Median's cloud may send the docs' curly apostrophes or straight ones: the rows match straight text.
  const text = straightQuotes(message.trim());
  return SYNC_FIXES.find((row) => row.matches(text))?.fix(text);
}

/** The docs' fix for each `invalid_url` message: which `invalid_url` it was matters. */
export const INVALID_URL_FIXES: Readonly<Record<string, string>> = Object.freeze({
  [CONNECT_MESSAGES.urlNotHttps]: 'Use an https:// URL (the tunnel gives one), or pass --public-url with an https origin.',
  [CONNECT_MESSAGES.urlPrivate]: 'That is a private address Median cannot reach: use a public address, or a tunnel (the default; --tunnel none needs a public --public-url).',
  [CONNECT_MESSAGES.urlTooLong]: 'Shorten the URL to 512 characters or fewer (a shorter --route or --public-url).',
  [CONNECT_MESSAGES.urlInvalid]: 'Fix the URL: MEDIAN_TOOLS_URL has to be a full URL like https://example.com/api/median.',
});
