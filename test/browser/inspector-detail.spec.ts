import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ReplayAnswer } from '../../src/events/inspector-api.js';
import type { CallRecord } from '../../src/median/call-record.js';
import { LIST_ROWS, apiFromPage, detailFields, filterBy, newestMatch, openFirstCall, openInspector, waitForOnlyTool } from '../helpers/inspector-page.js';
import { approveNextHeldCall } from '../helpers/use-demo.js';

/** The signature's `t=` of a recorded request, in ms. */
function signedAt(record: CallRecord): number {
  const header = record.request.headers['median-signature'];
  return Number(/(?:^|,)t=(\d+)/.exec(String(header))?.[1]);
}

/** Replays `id` through the inspector's own API (as the page's Replay button does) and returns its recorded row id. */
async function replayAndFind(page: Page, id: string, body: Record<string, unknown>): Promise<string> {
  const answer = await apiFromPage<ReplayAnswer>(page, '/api/replay', { id, newId: true, ...body });
  expect(answer.replayOf).toBe(id);
  let rowId = '';
  await expect
    .poll(async () => {
      const row = await newestMatch(page, `is:replay ${answer.toolCallId}`, 20_000);
      return (rowId = row.toolCallId === answer.toolCallId ? row.id : '');
    }, { timeout: 20_000 })
    .not.toBe('');
  return rowId;
}

/** Opens the call with record id `id` by filtering the list to it. */
async function openById(page: Page, toolCallId: string, id: string): Promise<void> {
  const opened = await openFirstCall(page, toolCallId);
  expect(opened).toBe(id);
}

/** The number of the viewport's top row (0 = newest) and its id. */
function rowAtViewportTop(page: Page): Promise<{ id: string; scrollTop: number }> {
  // (This file is compiled without DOM types: the page's objects are typed by hand.)
  type Box = { left: number; top: number };
  type Element = { scrollTop: number; getBoundingClientRect(): Box; closest(selector: string): { dataset: { id?: string } } | null };
  return page.$eval('[data-testid="call-list"]', (node) => {
    const viewport = node as unknown as Element;
    const box = viewport.getBoundingClientRect();
    const doc = (globalThis as unknown as { document: { elementFromPoint(x: number, y: number): Element | null } }).document;
    const row = doc.elementFromPoint(box.left + 40, box.top + 4)?.closest('.row');
    return { id: row?.dataset.id ?? '', scrollTop: viewport.scrollTop };
  });
}

describe('the browser inspector: the call detail, the replay age and the live list', () => {
  it("marks the 4,000-character cut and the 100 KB limit in the detail where they bite, and only there", async () => {
    const { page, pageErrors } = await openInspector();
    const exported = await newestMatch(page, 'tool:exportHistory');
    // Sixty history entries are about 6,000 characters: the agent reads the first 4,000.
    const normal = await replayAndFind(page, exported.id, { input: { size: 'normal' } });
    const normalRow = await apiFromPage<CallRecord>(page, `/api/calls/${normal}`);
    await openById(page, normalRow.toolCallId, normal);
    expect(await page.textContent('[data-testid="verdict"]')).toBe('answered');
    expect(await page.textContent('[data-testid="cut-marker"]')).toContain('the first 4,000 characters');
    expect(await page.$('[data-testid="size-limit"]')).toBeNull();
    await page.click('[data-testid="agent-sees"] [data-testid="unfold"]');
    expect((await page.textContent('[data-testid="agent-sees"]'))!.length).toBe(4_000);

    // "huge" is over Median's 100 KB: the agent is told the tool is not answering, and the response says why.
    const huge = await replayAndFind(page, exported.id, { input: { size: 'huge' } });
    const hugeRow = await apiFromPage<CallRecord>(page, `/api/calls/${huge}`);
    await openById(page, hugeRow.toolCallId, huge);
    expect(await page.textContent('[data-testid="verdict"]')).toBe('not-answering');
    const limit = await page.textContent('[data-testid="size-limit"]');
    expect(limit).toContain("Over Median's 100 KB answer limit");
    expect(Number(/\(([\d,]+) bytes\)/.exec(limit ?? '')?.[1]?.replace(/,/g, ''))).toBeGreaterThan(102_400);
    expect(await page.$('[data-testid="cut-marker"]')).toBeNull();
    expect(pageErrors).toEqual([]);
  });

  it('Save as test writes the call under the project’s median-calls/ and says where', async () => {
    const { demo, page, pageErrors } = await openInspector();
    const id = await openFirstCall(page, 'tool:orderStatus');
    await page.click('[data-testid="save-call"]');
    await page.waitForFunction(() => /Saved as median-calls\//.test((globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector('[data-testid="flash"]')?.textContent ?? ''));
    const file = /Saved as (median-calls\/\S+\.json)/.exec((await page.textContent('[data-testid="flash"]')) ?? '')?.[1];
    const saved = JSON.parse(await readFile(join(demo.dataDir, 'my-shop', file!), 'utf8')) as { call: { tool: string }; savedFrom: { recordId: string } };
    expect(saved.call.tool).toBe('orderStatus');
    expect(saved.savedFrom.recordId).toBe(id);
    expect(pageErrors).toEqual([]);
  });

  it('shows the approval id and approvedBy of an approved call', async () => {
    const { demo, page } = await openInspector();
    await approveNextHeldCall(demo, 'A teammate');
    const id = await openFirstCall(page, 'risk:high');
    const record = await apiFromPage<CallRecord>(page, `/api/calls/${id}`);
    // The docs: an approved call's toolCallId is the approval request's id.
    expect(record.toolCallId).toMatch(/^apr_/);
    const fields = await detailFields(page);
    expect(fields['approvedBy']).toBe('A teammate');
    expect(fields['approval id']).toBe(record.toolCallId);
    expect(fields['risk']).toBe('high');
    // A call nobody approved shows neither.
    await openFirstCall(page, 'risk:low');
    const low = await detailFields(page);
    expect(low).not.toHaveProperty('approvedBy');
    expect(low).not.toHaveProperty('approval id');
  });

  it('replays at the signature age chosen in the dialog: signed with that timestamp, and the detail shows the age', async () => {
    const { page, pageErrors } = await openInspector();
    const originalId = await openFirstCall(page, 'tool:orderStatus verdict:answered');
    await page.click('[data-testid="edit-replay"]');
    await page.waitForSelector('[data-testid="replay-dialog"]:not([hidden])');
    await expect.poll(() => page.textContent('[data-testid="replay-problem"]'), { timeout: 15_000 }).toBe('valid');
    await page.selectOption('[data-testid="replay-age"]', '-60000');
    const sentAt = Date.now();
    await page.click('[data-testid="replay-send"]');
    await page.waitForSelector('[data-testid="diff"]:not([hidden]) table.diff', { timeout: 20_000 });

    const replayRow = await newestMatch(page, 'is:replay');
    expect(replayRow.replayOf).toBe(originalId);
    const replay = await apiFromPage<CallRecord>(page, `/api/calls/${replayRow.id}`);
    // Signed a minute before it was sent, and still within Median's five minutes: valid.
    expect(signedAt(replay)).toBeGreaterThanOrEqual(sentAt - 60_000 - 1_000);
    expect(signedAt(replay)).toBeLessThanOrEqual(sentAt - 60_000 + 5_000);
    expect(replay.signature).toBe('valid');
    await page.click('[data-testid="close-diff"]');
    await openById(page, replay.toolCallId, replay.id);
    expect((await detailFields(page))['age']).toMatch(/^signed 6\d\.\d s before it arrived$/);

    // Past the five minutes the endpoint refuses it, and the detail says how old it was.
    const staleId = await replayAndFind(page, originalId, { atOffsetMs: -310_000 });
    const stale = await apiFromPage<CallRecord>(page, `/api/calls/${staleId}`);
    expect(stale.signature).toBe('stale_timestamp');
    await openById(page, stale.toolCallId, staleId);
    expect((await detailFields(page))['age']).toMatch(/^signed 31\d\.\d s before it arrived$/);
    expect(pageErrors).toEqual([]);
  });

  it('draws the list from a fixed pool of rows: scrolling and new calls add or remove no row element', async () => {
    const { page } = await openInspector({ intervalMs: 150 });
    const total = () => page.$eval('[data-testid="count"]', (count) => Number(count.textContent?.replace(/\D/g, '') ?? 0));
    await expect.poll(total, { timeout: 40_000 }).toBeGreaterThan(60);
    // Row elements added to or removed from the list from now on (their cells' text may change).
    await page.evaluate(`(() => {
      const spacer = document.querySelector('[data-testid="call-list"] .spacer');
      globalThis.rowChanges = 0;
      new MutationObserver((records) => {
        for (const record of records) globalThis.rowChanges += record.addedNodes.length + record.removedNodes.length;
      }).observe(spacer, { childList: true });
    })()`);
    await page.hover(LIST_ROWS);
    for (let step = 0; step < 8; step++) await page.mouse.wheel(0, 120);
    await expect.poll(() => page.textContent('[data-testid="follow"]')).toContain('paused');
    const before = await total();
    await expect.poll(total, { timeout: 20_000 }).toBeGreaterThan(before + 2);
    // Back to the top: the rows that came in above while paused (kept out of view) are scrolled past too.
    await expect
      .poll(async () => {
        await page.mouse.wheel(0, -960);
        return page.textContent('[data-testid="follow"]');
      }, { timeout: 20_000 })
      .toContain('following');
    expect(await page.evaluate('globalThis.rowChanges')).toBe(0);
    // The pool holds the rows a viewport shows and a few more, not one element per call.
    const { rows, height } = await page.$eval('[data-testid="call-list"]', (viewport) => ({
      rows: viewport.querySelectorAll('.spacer > .row').length,
      height: (viewport as unknown as { clientHeight: number }).clientHeight,
    }));
    expect(rows).toBeLessThanOrEqual(Math.ceil(height / 26) + 13);
    expect(rows).toBeLessThan(await total());
  });

  it('moves the selection with the arrow keys, row by row in the order shown', async () => {
    const { page } = await openInspector();
    await filterBy(page, 'tool:orderStatus');
    await waitForOnlyTool(page, 'orderStatus', 3);
    // The list as shown, top to bottom (the pool's elements are in no particular order in the page).
    const shown = () =>
      page.$$eval(LIST_ROWS, (rows) =>
        rows
          .map((row) => ({ id: (row as unknown as { dataset: { id: string } }).dataset.id, y: row.getBoundingClientRect().top }))
          .sort((a, b) => a.y - b.y)
          .map((row) => row.id),
      );
    const order = await shown();
    await page.click(`${LIST_ROWS}[data-id="${order[0]}"]`);
    await page.waitForSelector(`[data-testid="detail"][data-record-id="${order[0]}"]`);
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector(`[data-testid="detail"][data-record-id="${order[1]}"]`);
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector(`[data-testid="detail"][data-record-id="${order[2]}"]`);
    await page.keyboard.press('ArrowUp');
    await page.waitForSelector(`[data-testid="detail"][data-record-id="${order[1]}"]`);
    expect(await page.$$eval(`${LIST_ROWS}.selected`, (rows) => rows.map((row) => (row as unknown as { dataset: { id: string } }).dataset.id))).toEqual([order[1]]);
  });

  it('follows new calls until the user scrolls down, keeps the rows in view still, and follows again back at the top', async () => {
    const { page } = await openInspector({ intervalMs: 150 });
    const total = () => page.$eval('[data-testid="count"]', (count) => Number(count.textContent?.replace(/\D/g, '') ?? 0));
    // Enough calls to scroll (the viewport shows about 30 rows).
    await expect.poll(total, { timeout: 40_000 }).toBeGreaterThan(60);
    expect(await page.textContent('[data-testid="follow"]')).toContain('following');

    await page.hover(LIST_ROWS);
    await page.mouse.wheel(0, 10 * 26);
    await expect.poll(() => page.textContent('[data-testid="follow"]')).toContain('paused');
    const held = await rowAtViewportTop(page);
    expect(held.scrollTop).toBeGreaterThan(0);
    const heldTotal = await total();
    // New calls arrive above: the row in view stays the same, the list moves under it.
    await expect.poll(total, { timeout: 20_000 }).toBeGreaterThan(heldTotal + 2);
    await expect.poll(() => page.textContent('[data-testid="follow"]')).toMatch(/\d+ new/);
    expect((await rowAtViewportTop(page)).id).toBe(held.id);
    expect((await rowAtViewportTop(page)).scrollTop).toBeGreaterThan(held.scrollTop);

    // Back at the top (the "back to newest" button), it follows again: the newest call is on top as it comes.
    await page.click('[data-testid="follow"]');
    await expect.poll(() => page.textContent('[data-testid="follow"]')).toContain('following');
    const topNow = (await rowAtViewportTop(page)).id;
    await expect.poll(async () => (await rowAtViewportTop(page)).id, { timeout: 20_000 }).not.toBe(topNow);
    const newest = await apiFromPage<{ rows: Array<{ id: string }> }>(page, '/api/calls?limit=5');
    expect(newest.rows.map((row) => row.id)).toContain((await rowAtViewportTop(page)).id);
    expect((await rowAtViewportTop(page)).scrollTop).toBe(0);
  });
});
