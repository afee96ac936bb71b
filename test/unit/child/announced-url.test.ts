import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findAnnouncedUrl } from '../../../src/child/announced-url.js';

/** The whole start-up output of each real dev server, captured from it as it ran here (stdout and stderr, in order). */
const captured = (name: string): string[] => readFileSync(new URL(`./dev-server-output/${name}.txt`, import.meta.url), 'utf8').split('\n');

/** What the daemon does: the first line that announces an address wins. */
const firstAnnounced = (lines: string[]): string | undefined => {
  for (const line of lines) {
    const found = findAnnouncedUrl(line);
    if (found) return found.origin;
  }
  return undefined;
};

describe('the address a dev server announces', () => {
  it.each([
    ['next16-npm-run-dev', 'http://localhost:3000'],
    ['next16-turbopack', 'http://localhost:3000'],
    ['next16-webpack', 'http://localhost:3000'],
    ['sveltekit', 'http://localhost:5173'],
    ['nuxt', 'http://localhost:3000'],
    ['astro', 'http://localhost:4321'],
    ['express-node-watch', 'http://localhost:3000'],
    ['hono-tsx-watch', 'http://localhost:3000'],
  ])('%s: its own start-up output', (name, origin) => {
    expect(firstAnnounced(captured(name))).toBe(origin);
  });

  it.each([
    // Vite's line as a colour terminal gets it (picocolors: green arrow, bold label, cyan URL with a bold port).
    ['Vite in colour', '  \u001b[32m➜\u001b[39m  \u001b[1mLocal\u001b[22m:   \u001b[36mhttp://localhost:\u001b[1m5173\u001b[22m/\u001b[39m', 'http://localhost:5173'],
    // Next.js before 13.4.
    ['old Next.js', 'ready - started server on 0.0.0.0:3000, url: http://localhost:3000', 'http://localhost:3000'],
    ['wrangler', '[wrangler:info] Ready on http://localhost:8787', 'http://localhost:8787'],
    ['wrangler 3', '⎔ Ready on http://127.0.0.1:8787', 'http://127.0.0.1:8787'],
    ['Express idiom', 'Example app listening on port 3001', 'http://localhost:3001'],
    ['bare address', 'Server listening on 0.0.0.0:8080', 'http://127.0.0.1:8080'],
    ['wildcard URL', 'Listening on http://0.0.0.0:4000', 'http://127.0.0.1:4000'],
    ['IPv6 loopback', 'Listening on http://[::1]:4000', 'http://[::1]:4000'],
    ['https', '  ➜  Local:   https://localhost:5173/', 'https://localhost:5173'],
    ['a terminal link', 'Listening on \u001b]8;;http://localhost:3002\u0007http://localhost:3002\u001b]8;;\u0007', 'http://localhost:3002'],
  ])('%s', (_name, line, origin) => {
    expect(findAnnouncedUrl(line)?.origin).toBe(origin);
  });

  it.each([
    ['a Network line', '- Network:       http://192.0.2.2:3000'],
    ['Vite without --host', '  ➜  Network: use --host to expose'],
    ['a LAN address', 'Listening on http://192.168.1.5:3000'],
    ['a request log', ' GET /api/median 200 in 96ms'],
    ['a URL in a message that announces nothing', 'fetch failed: http://localhost:9999/thing'],
    ['the Node inspector', 'Debugger listening on ws://127.0.0.1:9229/0f1c'],
    ['an empty line', ''],
    ["Vite's taken port", 'Port 5173 is in use, trying another one...'],
    ["Nuxt's DevTools hint", '  ➜ DevTools: press Shift + Option + D in the browser (v2.6.5)'],
  ])('not %s', (_name, line) => {
    expect(findAnnouncedUrl(line)).toBeUndefined();
  });

  it('keeps the line it read, colour codes stripped', () => {
    expect(findAnnouncedUrl('\u001b[32m- Local:\u001b[39m http://localhost:3000')?.line).toBe('- Local: http://localhost:3000');
  });
});
