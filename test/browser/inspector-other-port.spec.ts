import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { connectToDaemon } from '../../src/control/index.js';
import type { CallPage } from '../../src/events/inspector-api.js';
import { writeForwardingPage } from '../../src/platform/index.js';
import { useTempDir } from '../helpers/e2e-world.js';
import { LIST_ROWS, apiFromPage, attackerResults, openInspector, pageSession, topRowId } from '../helpers/inspector-page.js';
import { rawRequest } from '../helpers/use-inspector-server.js';
import { useHttpServer } from '../helpers/use-http-server.js';

/**
 * Issue 18 item 6: cookies are not isolated by port. With the inspector's
 * session in a cookie, any page served on 127.0.0.1:<another port> (the
 * user's dev server, anything they run) received it: its server then read
 * `/api/calls`, got a signed curl and replayed with a forged `Origin`; the
 * page could set a cookie of that name (or enough cookies) to lock the user
 * out; and browsing the app through the proxy recorded the cookie.
 *
 * The attacker here is a real page on another 127.0.0.1 port, opened in the
 * same Chromium profile after the user opened the inspector, and its own
 * server, which uses whatever the browser sent it from a non-browser client.
 */

/** Every file of the data dir, as text (the call store, state, anything written). */
async function dataDirText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(entries.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'utf8')));
  return texts.join('\n');
}

async function freshLink(dataDir: string): Promise<string> {
  const control = await connectToDaemon(dataDir);
  onTestFinished(() => control.close());
  return ((await control.send({ command: 'inspector-link' })) as { link: string }).link;
}

describe('the inspector against a page on another 127.0.0.1 port, in Chromium', () => {
  it('gives that page and its server nothing to read, curl or replay with, and no way to lock the user out', async () => {
    const { demo, page, pageErrors } = await openInspector();
    const inspector = demo.inspectorUrl;
    const target = await topRowId(page);
    const cookiesReceived: Array<string | undefined> = [];
    const evil = await useHttpServer((req, res) => {
      cookiesReceived.push(req.headers.cookie);
      if (req.url !== '/') return void res.end('ok');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><script>
        window.results = (async () => {
          const out = { cookie: document.cookie, storage: sessionStorage.length };
          await fetch('/steal');
          try { out.read = (await fetch('${inspector}/api/calls', { credentials: 'include' })).status; } catch { out.read = 'blocked'; }
          try { out.curl = (await fetch('${inspector}/api/calls/${target}/curl', { credentials: 'include' })).status; } catch { out.curl = 'blocked'; }
          try { await fetch('${inspector}/api/replay', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ id: '${target}', newId: true, confirmed: true, input: { orderNumber: 'EVIL' } }) }); out.replay = 'sent'; } catch { out.replay = 'blocked'; }
          // The lock-out: a cookie of the old session's name (a more specific path goes first), and a cookie bomb.
          document.cookie = 'median_dev_inspector=evil; path=/api';
          document.cookie = 'median_dev_inspector=evil; path=/';
          for (let i = 0; i < 60; i++) document.cookie = 'bomb' + i + '=' + 'x'.repeat(4000) + '; path=/';
          out.cookiesSet = document.cookie.length;
          return out;
        })();
      </script>`);
    });
    const results = await attackerResults(page, evil.url);
    expect(results.cookie).toBe('');
    expect(results.storage).toBe(0);
    expect(results.read).toBe('blocked');
    expect(results.curl).toBe('blocked');
    expect(results.cookiesSet).toBeGreaterThan(200_000);

    // What the browser sent the attacker's server before it set its own cookies: no inspector credential.
    const stolen = cookiesReceived[0] ?? '';
    expect(stolen).not.toContain('median_dev_inspector');
    // Its server, a non-browser client, with all of it and a forged Origin: nothing.
    const port = Number(new URL(inspector).port);
    const forged = { cookie: stolen, origin: inspector, 'content-type': 'application/json' };
    for (const path of ['/api/calls', `/api/calls/${target}/curl`]) {
      expect((await rawRequest(port, { path, headers: forged })).status, path).toBe(401);
    }
    const replay = await rawRequest(port, { method: 'POST', path: '/api/replay', headers: forged, body: JSON.stringify({ id: target, newId: true, confirmed: true, input: { orderNumber: 'EVIL' } }) });
    expect(replay.status).toBe(401);
    expect((await apiFromPage<CallPage>(page, `/api/calls?filter=${encodeURIComponent('is:replay')}`)).total).toBe(0);

    // The user is not locked out: the open page reloads into its session, a fresh link opens another.
    await page.reload();
    await page.waitForSelector(LIST_ROWS, { timeout: 20_000 });
    expect((await apiFromPage<CallPage>(page, '/api/calls?limit=1')).total).toBeGreaterThan(0);
    await expect.poll(() => page.textContent('[data-testid="live"]'), { timeout: 20_000 }).toContain('live');
    const second = await page.context().newPage();
    await second.goto(await freshLink(demo.dataDir));
    await second.waitForSelector(LIST_ROWS, { timeout: 20_000 });
    expect(second.url()).toBe(`${inspector}/`);
    expect(pageErrors).toEqual([]);
  });

  it('browsing the app through the proxy records no inspector credential; one that arrives anyway is masked', async () => {
    const { demo, page } = await openInspector();
    // The user opens their app through the proxy in the same browser (another port of 127.0.0.1).
    const app = await page.context().newPage();
    await app.goto(`${demo.proxyUrl}/median-dev-browse-check`);
    await vi.waitFor(async () => expect(await dataDirText(demo.dataDir)).toContain('/median-dev-browse-check'), { timeout: 20_000 });
    expect(await dataDirText(demo.dataDir)).not.toMatch(/median_dev_inspector=(?!\*{4})/);
    const session = await pageSession(page);
    expect(session).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    // And a client that does send one (a browser that kept an earlier version's cookie, a copied header).
    await fetch(`${demo.proxyUrl}/median-dev-stray-credential`, { headers: { cookie: `a=1; median_dev_inspector=${session}`, 'x-median-dev-session': session! } });

    await vi.waitFor(async () => expect(await dataDirText(demo.dataDir)).toContain('/median-dev-stray-credential'), { timeout: 20_000 });
    const stored = await dataDirText(demo.dataDir);
    expect(stored).not.toContain(session);
    expect(stored).toContain(`median_dev_inspector=****${session!.slice(-4)}`);
    const har = await page.evaluate(async (id) => (await fetch('/api/har', { headers: { 'x-median-dev-session': id } })).text(), session!);
    expect(har).toContain('/median-dev-stray-credential');
    expect(har).not.toContain(session);
  });

  it('opens from the file:// page `inspect` hands the browser, and the address bar keeps no token', async () => {
    const { demo, page } = await openInspector();
    const dir = await useTempDir('median-dev-forward-');
    const tab = await page.context().newPage();
    await tab.goto(await writeForwardingPage(dir, await freshLink(demo.dataDir)));
    await tab.waitForURL(`${demo.inspectorUrl}/`, { timeout: 20_000 });
    await tab.waitForSelector(LIST_ROWS, { timeout: 20_000 });
    expect(await pageSession(tab)).not.toBe(await pageSession(page));
  });
});
