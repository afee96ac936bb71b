/**
 * The address a dev server announces when it is ready, read from one line
 * of its output. The idioms of the frameworks people use (each unit-tested
 * with lines captured from the real dev server):
 *
 * - Vite, SvelteKit, React Router: `  ➜  Local:   http://localhost:5173/`
 * - Next.js: `   - Local:        http://localhost:3000`; before 13.4:
 *   `ready - started server on 0.0.0.0:3000, url: http://localhost:3000`
 * - Nuxt: `  ➜ Local:    http://localhost:3000/`; Astro: `┃ Local    http://localhost:4321/`
 * - wrangler: `[wrangler:info] Ready on http://localhost:8787`
 * - Express, Hono and hand-made servers: `Listening on http://localhost:3000`,
 *   `Server is running on http://localhost:3000`, `listening on port 3000`
 *
 * Colour codes and terminal links are stripped first. Only a loopback or
 * wildcard address counts (a `Network:` line names the LAN address, which is
 * not where median-dev connects), and only on a line that reads like an
 * announcement, so a request log naming a URL is not taken for one.
 */

/** An address a dev server said it listens on. */
export interface AnnouncedUrl {
  /** The origin to connect to: `0.0.0.0` and `[::]` become `127.0.0.1` and `localhost`. */
  origin: string;
  /** The line it was read from, colour codes stripped. */
  line: string;
}

/** CSI sequences (colours, cursor moves) and OSC ones (terminal hyperlinks), as terminals and `strip-ansi` read them. */
const TERMINAL_CODES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u009b[0-?]*[ -/]*[@-~]/g;

/** Words of a ready line; a line without one of them is not read (a request log naming a URL). */
const ANNOUNCING = /\b(?:local|ready|listening|listens|listen|running|started|serving|server|available|up|open(?:ed)?|dev)\b/i;
/** A label for another address than the one to connect to. */
const NOT_LOCAL_LABEL = /\b(?:network|external|public|tunnel|inspect(?:or)?|debugger|docs|devtools|hmr)\b\s*[:┃│]?/i;

const URL_IN_LINE = /\bhttps?:\/\/(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?(?=[/\s,;)\]'"]|$)/gi;
/** `listening on port 3000`, `started server on 0.0.0.0:3000`, `listening at :8080`, `running on localhost:3000`. */
const BARE_ADDRESS =
  /\b(?:listening|listens|listen|running|started|serving|ready|up)\b[^\n]*?\b(?:on|at)\s+(?:port\s+(\d{1,5})\b|(?:(localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[[0-9a-f:.]*\]))?:(\d{1,5})\b)/i;

/** Strips colour codes and terminal links. */
export function stripTerminalCodes(text: string): string {
  return text.replace(TERMINAL_CODES, '');
}

/** The address this line announces, or undefined. */
export function findAnnouncedUrl(rawLine: string): AnnouncedUrl | undefined {
  const line = stripTerminalCodes(rawLine).trim();
  if (line === '' || !ANNOUNCING.test(line) || isOtherAddressLine(line)) return undefined;
  for (const match of line.matchAll(URL_IN_LINE)) {
    const origin = localOrigin(match[0]);
    if (origin) return { origin, line };
  }
  const bare = BARE_ADDRESS.exec(line);
  if (!bare) return undefined;
  const port = Number(bare[1] ?? bare[3]);
  const host = bare[2] ?? 'localhost';
  return isPort(port) ? { origin: `http://${connectHost(host.toLowerCase())}:${port}`, line } : undefined;
}

/** `  ➜  Network: http://192.168.1.5:5173/`: the line names where others connect, not us. */
function isOtherAddressLine(line: string): boolean {
  const label = NOT_LOCAL_LABEL.exec(line);
  if (!label) return false;
  // The label comes before the first URL or address: `Network: …`, `┃ Network  …`.
  const firstUrl = line.search(/https?:\/\/|\d+\.\d+\.\d+\.\d+|\bport\b/i);
  return firstUrl === -1 || label.index < firstUrl;
}

function isPort(port: number): boolean {
  return Number.isInteger(port) && port > 0 && port <= 65_535;
}

/** The URL's origin if it is on this machine, with a wildcard host turned into one to connect to. */
function localOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase();
  if (!isLocalHost(host)) return undefined;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!isPort(port)) return undefined;
  const portPart = url.port === '' ? '' : `:${url.port}`;
  return `${url.protocol}//${connectHost(host)}${portPart}`;
}

function isLocalHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || /^127(?:\.\d{1,3}){3}$/.test(host) || host === '0.0.0.0' || host === '[::1]' || host === '[::]';
}

/** Where to connect for a host a server printed: a wildcard is reached on loopback. */
function connectHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '[::]' || host === '[]') return 'localhost';
  return host;
}
