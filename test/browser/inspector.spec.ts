import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { connectToDaemon } from '../../src/control/index.js';
import type { CallPage } from '../../src/events/inspector-api.js';
import { useTempDir, waitForEventAfter } from '../helpers/e2e-world.js';
import { LIST_ROWS, apiFromPage, attackerResults, filterBy, openFirstCall, openInspector, topRowId, waitForOnlyTool } from '../helpers/inspector-page.js';
import { approveNextHeldCall } from '../helpers/use-demo.js';
import { useHttpServer } from '../helpers/use-http-server.js';

/** With MEDIAN_DEV_SCREENSHOTS=1 the README's screenshots are written to docs/; else to a temp folder. */
const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));

describe('the browser inspector, in Chromium against the demo', () => {
  it('shows calls live: new ones appear on top without a reload, and the link leaves no token in the address bar', async () => {
    const { demo, page, pageErrors } = await openInspector();
    expect(page.url()).toBe(`${demo.inspectorUrl}/`);
    const first = await topRowId(page);
    await expect.poll(() => topRowId(page), { timeout: 20_000 }).not.toBe(first);
    expect(await page.textContent('[data-testid="live"]')).toContain('live');
    expect(await page.textContent('[data-testid="tunnel"]')).toContain('open');
    expect(pageErrors).toEqual([]);
  });

  it('narrows the list with the filter language', async () => {
    const { page } = await openInspector();
    await filterBy(page, 'tool:orderStatus');
    await waitForOnlyTool(page, 'orderStatus');
    expect(await page.textContent('[data-testid="count"]')).toMatch(/^[\d,]+ of [\d,]+ calls$/);
    await filterBy(page, 'tool:orderStatus -tool:orderStatus');
    await expect.poll(() => page.$$eval(LIST_ROWS, (rows) => rows.length)).toBe(0);
  });

  it('replays a call with an edited input checked against the manifest, and opens the diff against the original', async () => {
    const { page, pageErrors } = await openInspector();
    const shots = process.env.MEDIAN_DEV_SCREENSHOTS ? DOCS : await useTempDir('median-dev-shots-');
    const originalId = await openFirstCall(page, 'tool:orderStatus verdict:answered');
    // The whole list again, the call still open beside it (a screenshot with more than one row).
    await filterBy(page, '');
    await expect.poll(() => page.$$eval(LIST_ROWS, (rows) => rows.length), { timeout: 20_000 }).toBeGreaterThanOrEqual(12);
    await page.screenshot({ path: join(shots, 'inspector-list.png') });
    await page.locator('[data-testid="detail"]').screenshot({ path: join(shots, 'inspector-detail.png') });

    await page.click('[data-testid="edit-replay"]');
    await page.waitForSelector('[data-testid="replay-dialog"]:not([hidden])');
    await expect.poll(() => page.textContent('[data-testid="schema-note"]'), { timeout: 15_000 }).toContain("orderStatus's inputSchema");
    await page.fill('[data-testid="replay-input"]', '{"orderNumber": 1001}');
    await expect.poll(() => page.textContent('[data-testid="replay-problem"]')).toBe('invalid_input: orderNumber must be a string.');
    expect(await page.isDisabled('[data-testid="replay-send"]')).toBe(true);
    await page.fill('[data-testid="replay-input"]', '{"orderNumber": "A1002", "colour": "red"}');
    await expect.poll(() => page.textContent('[data-testid="replay-problem"]')).toBe('invalid_input: Unexpected field "colour". This tool\'s input allows: orderNumber.');
    await page.fill('[data-testid="replay-input"]', '{"orderNumber": "A1002"}');
    await expect.poll(() => page.textContent('[data-testid="replay-problem"]')).toBe('valid');
    await page.click('[data-testid="replay-send"]');

    await page.waitForSelector('[data-testid="diff"]:not([hidden]) table.diff', { timeout: 20_000 });
    const heads = await page.textContent('[data-testid="diff"] .diff-heads');
    expect(heads).toContain('original');
    expect(heads).toContain('replay');
    // The edited input changed the answer: the order number differs between the two sides.
    expect(await page.$$eval('[data-testid="diff"] tr.d-changed', (rows) => rows.length)).toBeGreaterThan(0);
    await page.screenshot({ path: join(shots, 'inspector-diff.png') });
    const replays = await apiFromPage<CallPage>(page, `/api/calls?filter=${encodeURIComponent('is:replay')}`);
    expect(replays.rows[0]).toMatchObject({ replayOf: originalId, tool: 'orderStatus' });
    expect(replays.rows[0]!.toolCallId).toMatch(/^call_[0-9a-f]{32}$/);
    await page.click('[data-testid="close-diff"]');
    await filterBy(page, 'is:replay');
    await expect.poll(() => topRowId(page), { timeout: 10_000 }).toBe(replays.rows[0]!.id);
    expect(pageErrors).toEqual([]);
  });

  it('asks before replaying a high-risk call, naming the tool and the input', async () => {
    const { demo, page } = await openInspector();
    // The demo holds a high-risk call for a teammate (as Median does): approve one so it reaches the route.
    await approveNextHeldCall(demo);
    const originalId = await openFirstCall(page, 'risk:high');
    await page.click('[data-testid="replay"]');
    await page.waitForSelector('[data-testid="replay-confirm"]');
    const confirm = await page.textContent('[data-testid="replay-confirm"]');
    expect(confirm).toContain('refundOrder has risk "high"');
    expect(confirm).toContain('"orderNumber"');
    // Nothing was sent yet.
    expect((await apiFromPage<CallPage>(page, `/api/calls?filter=${encodeURIComponent('is:replay')}`)).total).toBe(0);
    await page.click('[data-testid="replay-confirm-yes"]');
    await page.waitForSelector('[data-testid="diff"]:not([hidden]) table.diff', { timeout: 20_000 });
    const replays = await apiFromPage<CallPage>(page, `/api/calls?filter=${encodeURIComponent('is:replay')}`);
    expect(replays.rows.map((row) => row.replayOf)).toEqual([originalId]);
  });

  it('downloads a HAR of the filtered list, with no key in it', async () => {
    const { page } = await openInspector();
    await filterBy(page, 'tool:orderStatus');
    await waitForOnlyTool(page, 'orderStatus');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="har"]')]);
    expect(download.suggestedFilename()).toBe('median-dev-calls.har');
    const text = await readFile((await download.path())!, 'utf8');
    const har = JSON.parse(text) as { log: { version: string; entries: Array<{ _tool: string; request: { method: string } }> } };
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries.length).toBeGreaterThan(0);
    expect(new Set(har.log.entries.map((entry) => entry._tool))).toEqual(new Set(['orderStatus']));
    expect(text).not.toMatch(/median_key_[A-Za-z0-9]{32,}/);
  });

  it('lets a page from another origin neither read the list nor trigger a replay (fetch, form post, WebSocket)', async () => {
    const { demo, page } = await openInspector();
    const target = await topRowId(page);
    const inspector = demo.inspectorUrl;
    // The attacker's page: another origin on this machine (the same *site* for cookies).
    const evil = await useHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><iframe name="sink"></iframe><script>
        window.results = (async () => {
          const out = {};
          try { await (await fetch('${inspector}/api/calls', { credentials: 'include' })).text(); out.read = 'read'; } catch { out.read = 'blocked'; }
          try { const r = await fetch('${inspector}/api/calls', { mode: 'no-cors', credentials: 'include' }); out.noCors = r.type + ':' + (await r.text()).length; } catch { out.noCors = 'blocked'; }
          try { await fetch('${inspector}/api/replay', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ id: '${target}', confirmed: true }) }); out.post = 'sent'; } catch { out.post = 'blocked'; }
          const form = document.createElement('form');
          form.method = 'POST'; form.action = '${inspector}/api/replay'; form.enctype = 'text/plain'; form.target = 'sink';
          const input = document.createElement('input');
          input.name = '{"id":"${target}","confirmed":true,"x":"'; input.value = '"}';
          form.appendChild(input); document.body.appendChild(form);
          await new Promise((resolve) => { document.querySelector('iframe').onload = resolve; setTimeout(resolve, 5000); form.submit(); });
          out.form = 'submitted';
          out.ws = await new Promise((resolve) => {
            const ws = new WebSocket('${inspector.replace('http', 'ws')}/api/live');
            ws.onopen = () => resolve('open');
            ws.onerror = () => resolve('refused');
          });
          return out;
        })();
      </script>`);
    });
    const results = await attackerResults<Record<string, string>>(page, evil.url);
    // Reading fails outright, or gives an opaque nothing (Chromium may also block it by the resource policy).
    expect(results.read).toBe('blocked');
    expect(['blocked', 'opaque:0']).toContain(results.noCors);
    expect(['blocked', 'sent']).toContain(results.post);
    expect(results.form).toBe('submitted');
    expect(results.ws).toBe('refused');
    // The POSTs reached the server and were refused: no replay happened.
    const replays = await apiFromPage<CallPage>(page, `/api/calls?filter=${encodeURIComponent('is:replay')}`);
    expect(replays.total).toBe(0);
  });

  it('shows the heal after a hostname change under way in the endpoint pill (its state → the new URL), then synced', async () => {
    const { demo, page, pageErrors } = await openInspector();
    // Every text the endpoint pill shows from now on (the live channel redraws it on each status).
    await page.evaluate(`(() => {
      const seen = (globalThis.endpointTexts = []);
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid="endpoint"]')?.textContent ?? '';
        if (seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    })()`);
    const control = await connectToDaemon(demo.dataDir);
    onTestFinished(() => control.close());
    const mark = demo.cli.events().length;
    await control.send({ command: 'simulate-hostname-change' });
    const done = await waitForEventAfter(demo.cli, mark, 'heal', { state: 'done' }, 30_000);

    const newUrl = done.url as string;
    const texts = () => page.evaluate('globalThis.endpointTexts') as Promise<string[]>;
    await expect.poll(async () => (await texts()).at(-1), { timeout: 10_000 }).toBe('endpoint synced');
    const underWay = (await texts()).filter((text) => / → /.test(text));
    expect(underWay.length).toBeGreaterThan(0);
    const states = ['changing', 'connecting', 'syncing'].map((state) => `endpoint ${state} → ${newUrl}`);
    for (const text of underWay) expect(states).toContain(text);
    expect(pageErrors).toEqual([]);
  });

  it('answers 421 to a page under another host name (DNS rebinding)', async () => {
    const { demo, page } = await openInspector();
    const port = new URL(demo.inspectorUrl).port;
    const rebound = await page.context().newPage();
    for (const path of ['/', '/api/calls', '/api/status']) {
      const response = await rebound.goto(`http://evil.test:${port}${path}`);
      expect(response?.status(), path).toBe(421);
      expect(await rebound.textContent('body')).toContain('inspector_host_refused');
    }
  });

  it('renders a recorded <script> and terminal escape sequences as text', async () => {
    const { demo, page, pageErrors } = await openInspector();
    const body = JSON.stringify({
      tool: 'orderStatus',
      toolCallId: 'call_pwned',
      input: { orderNumber: '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">', note: '\u001b[31mred\u001b[0m \u001b]0;title\u0007 \u202eevil' },
      context: { conversationId: 'conv_x', risk: 'low', visitor: { verified: false } },
    });
    const answer = await fetch(`${demo.proxyUrl}/api/median`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(answer.status).toBe(401);
    await openFirstCall(page, 'call_pwned');
    const detail = (await page.textContent('[data-testid="detail"]')) ?? '';
    expect(detail).toContain('<script>window.pwned=1</script>');
    expect(detail).toContain('\\u001b[31mred\\u001b[0m \\u001b]0;title\\u0007 \\u202eevil');
    expect(detail).not.toContain('\u001b');
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.$$eval('script', (scripts) => scripts.length)).toBe(1);
    expect(await page.$$eval('#app img', (images) => images.length)).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
