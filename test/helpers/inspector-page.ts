import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { CallPage } from '../../src/events/inspector-api.js';
import { useBrowser } from './use-browser.js';
import { useDemo, type DemoRun } from './use-demo.js';

/** The call list's rows (the title row has no id). */
export const LIST_ROWS = '[data-testid="call-list"] .row[data-id]';

export interface OpenedInspector {
  demo: DemoRun;
  page: Page;
  pageErrors: string[];
}

/** The demo, a fresh Chromium, and the inspector opened with the printed one-time link. */
export async function openInspector(options: { intervalMs?: number } = {}): Promise<OpenedInspector> {
  const demo = await useDemo(options);
  const context = await useBrowser();
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('dialog', (dialog) => {
    pageErrors.push(`a dialog opened: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.goto(demo.link);
  await page.waitForSelector(LIST_ROWS, { timeout: 20_000 });
  return { demo, page, pageErrors };
}

export const topRowId = (page: Page): Promise<string> =>
  page.$eval(LIST_ROWS, (row) => (row as unknown as { dataset: { id?: string } }).dataset.id ?? '');

export const visibleTools = (page: Page): Promise<string[]> =>
  page.$$eval(`${LIST_ROWS} .tool`, (cells) => cells.map((cell) => cell.textContent ?? ''));

/** The page's sessionStorage, in functions that run in the browser (the tests' types have no DOM). */
declare const sessionStorage: { getItem(key: string): string | null };

/** The session id the inspector page keeps (its sessionStorage), null without one. */
export function pageSession(page: Page): Promise<string | null> {
  return page.evaluate(() => sessionStorage.getItem('median-dev-session'));
}

/** The inspector's own API, asked from its own page (same origin, its session header). */
export function apiFromPage<T>(page: Page, path: string, body?: unknown): Promise<T> {
  return page.evaluate(
    async ([p, b]) => {
      const headers: Record<string, string> = { 'x-median-dev-session': sessionStorage.getItem('median-dev-session') ?? '' };
      const init = b === undefined ? { headers } : { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(b) };
      return (await fetch(p as string, init)).json();
    },
    [path, body] as const,
  ) as Promise<T>;
}

export async function filterBy(page: Page, text: string): Promise<void> {
  await page.fill('[data-testid="filter"]', text);
  await page.press('[data-testid="filter"]', 'Enter');
}

/**
 * Waits for the filtered page: at least `atLeast` rows, every one of `tool`. Right after the
 * filter is applied the list drawn before it still shows other tools, whose rows then go.
 */
export async function waitForOnlyTool(page: Page, tool: string, atLeast = 1): Promise<void> {
  await expect
    .poll(async () => {
      const tools = await visibleTools(page);
      return tools.length >= atLeast && tools.every((shown) => shown === tool);
    }, { timeout: 30_000 })
    .toBe(true);
}

/** The newest call the inspector itself says matches `filter` (polled until there is one). */
export async function newestMatch(page: Page, filter: string, timeout = 30_000): Promise<CallPage['rows'][number]> {
  let row: CallPage['rows'][number] | undefined;
  await expect
    .poll(async () => (row = (await apiFromPage<CallPage>(page, `/api/calls?filter=${encodeURIComponent(filter)}`)).rows[0]), { timeout })
    .toBeDefined();
  return row!;
}

/** Filters to `filter`, waits for a matching row and opens it. */
export async function openFirstCall(page: Page, filter: string): Promise<string> {
  await filterBy(page, filter);
  // The list may still show the unfiltered rows for a moment: take the id from the inspector's own
  // answer to the filter, then click that row once the page shows it.
  const { id } = await newestMatch(page, filter);
  await page.click(`${LIST_ROWS}[data-id="${id}"]`, { timeout: 20_000 });
  // The detail of this call, not the one open before it.
  await page.waitForSelector(`[data-testid="detail"][data-record-id="${id}"] [data-testid="verdict"]`);
  return id;
}

/** The detail's fields, name → text (the signature's age, approvedBy, the approval id…). */
export function detailFields(page: Page): Promise<Record<string, string>> {
  return page.$$eval('[data-testid="detail"] .field', (fields) =>
    Object.fromEntries(fields.map((field) => [field.firstElementChild?.textContent ?? '', field.lastElementChild?.textContent ?? ''])),
  );
}

/** Opens an attacker's page (its script sets `window.results`, a promise) in the same browser profile as `page`: what it found. */
export async function attackerResults<T extends Record<string, unknown>>(page: Page, url: string): Promise<T> {
  const attacker = await page.context().newPage();
  await attacker.goto(url);
  return attacker.evaluate(() => (globalThis as unknown as { results: Promise<T> }).results);
}
