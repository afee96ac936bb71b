/**
 * Scenario 7 (the browser inspector): its page in the system Chromium over
 * a store of 100,000 records. The inspector server runs in this process over
 * the store of scenario 2 (its call index built first, as the daemon does at
 * start). Timed:
 * - first paint: from `page.goto(link)` (the one-time link, its redirect,
 *   the page, its script, the session check, the live channel's hello and the
 *   first page of rows) until the first call row is in the page, and the
 *   browser's own first-contentful-paint;
 * - a scroll step, for wheel-sized steps (120 px) and page-sized ones: the
 *   page's work for it, i.e. the scroll listeners (from a capturing listener,
 *   first to run, to one after the page's own) plus the frame that redraws the
 *   list (from a frame callback asked for before the page's, to one asked for
 *   after it, which forces layout); and the latency from the scroll event to
 *   that frame laid out, which adds the wait for the frame (up to 16.7 ms at
 *   60 Hz);
 * - a jump to the middle of the list: until its rows (not placeholders) show.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startInspectorServer } from '../../src/inspector-server/index.js';
import { createCallStore } from '../../src/recorder/index.js';
import { parseFilter, recordMatches } from '../../src/median/index.js';
import type { Page } from 'playwright-core';
import { summarizeLatencies } from '../percentiles.js';

export interface InspectorBenchResult {
  records: number;
  /** Null when no Chromium was found (the scenario is skipped). */
  skipped: string | null;
  indexMs: number;
  firstRowsMs: number;
  firstContentfulPaintMs: number | null;
  /** The page's work per step (listeners + the frame that redraws). */
  wheel: { steps: number; p50Ms: number; p99Ms: number; maxMs: number };
  page: { steps: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** From the scroll event to the redrawn frame laid out (wheel steps). */
  wheelLatency: { steps: number; p50Ms: number; p99Ms: number; maxMs: number };
  jumpMs: number;
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROW_SELECTOR = '[data-testid="call-list"] .row[data-id]';

export async function runInspectorPaint(options: {
  dataDir: string;
  wheelSteps: number;
  pageSteps: number;
  /** Runs the wheel steps inside this (a trace, a profile) when given. */
  aroundWheelSteps?: (page: Page, steps: () => Promise<void>) => Promise<void>;
}): Promise<InspectorBenchResult> {
  const empty = { steps: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 };
  if (!existsSync(CHROMIUM)) {
    return { records: 0, skipped: `no Chromium at ${CHROMIUM}`, indexMs: 0, firstRowsMs: 0, firstContentfulPaintMs: null, wheel: empty, page: empty, wheelLatency: empty, jumpMs: 0 };
  }
  const store = createCallStore(options.dataDir);
  const started = performance.now();
  const server = await startInspectorServer({
    port: 0,
    snapshot: () => ({
      version: 'bench',
      proxyUrl: null,
      tunnel: { state: 'open', url: 'https://bench.loca.lt' },
      toolsUrl: null,
      endpoint: null,
      child: { state: 'none' },
      keyFingerprint: null,
      isDemo: false,
      callCount: 0,
      records: [],
    }),
    events: { on: () => () => undefined },
    scanRecords: () => store.scan(),
    findRecord: (id) => store.findByToolCallId(id),
    matcherFor(text) {
      const filter = parseFilter(text);
      return filter ? (record) => recordMatches(record, filter) : null;
    },
    replay: () => Promise.reject(new Error('no replays in the bench')),
    curlOf: () => '',
    harOf: () => ({}),
    readTools: async () => [],
  });
  await server.loaded;
  const indexMs = performance.now() - started;
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(join(tmpdir(), 'median-dev-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await context.newPage();
    const t0 = performance.now();
    await page.goto(server.newLink());
    await page.waitForSelector(ROW_SELECTOR);
    const firstRowsMs = performance.now() - t0;
    // The page's code below runs in the browser, so it is written as text (this file is compiled without DOM types).
    const firstContentfulPaintMs = (await page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null")) as number | null;
    const records = Number((await page.textContent('[data-testid="count"]'))?.replace(/\D/g, '') ?? 0);
    const viewport = `document.querySelector('[data-testid="call-list"]')`;
    // The timing listeners: one that runs first on every scroll, one after the page's own; each asks
    // for a frame callback, so the first runs before the page's redraw and the second after it.
    await page.evaluate(`(() => {
      const viewport = ${viewport};
      const bench = (globalThis.bench = { t0: 0, listeners: 0, frameStart: 0, steps: [], latencies: [] });
      document.addEventListener('scroll', () => {
        bench.t0 = performance.now();
        requestAnimationFrame(() => (bench.frameStart = performance.now()));
      }, { capture: true });
      viewport.addEventListener('scroll', () => {
        bench.listeners = performance.now() - bench.t0;
        requestAnimationFrame(() => {
          void viewport.querySelector('.spacer').getBoundingClientRect();
          void document.body.offsetHeight;
          const now = performance.now();
          bench.steps.push(bench.listeners + (now - bench.frameStart));
          bench.latencies.push(now - bench.t0);
        });
      });
    })()`);
    const step = (delta: number) =>
      page.evaluate(`new Promise((resolve) => {
        const viewport = ${viewport};
        viewport.addEventListener('scroll', () => requestAnimationFrame(() => setTimeout(resolve, 0)), { once: true });
        viewport.scrollTop += ${delta};
      })`);
    const takeSteps = async () => (await page.evaluate('globalThis.bench.steps.splice(0)')) as number[];
    const wheelSteps = async () => {
      for (let i = 0; i < options.wheelSteps; i++) await step(120);
    };
    await (options.aroundWheelSteps ? options.aroundWheelSteps(page, wheelSteps) : wheelSteps());
    const wheelSamples = await takeSteps();
    const wheel = summarizeLatencies(Float64Array.from(wheelSamples));
    const latencySamples = (await page.evaluate('globalThis.bench.latencies.splice(0)')) as number[];
    const wheelLatency = summarizeLatencies(Float64Array.from(latencySamples));
    const pageHeight = (await page.evaluate(`${viewport}.clientHeight`)) as number;
    for (let i = 0; i < options.pageSteps; i++) await step(pageHeight);
    const pageSamples = await takeSteps();
    await page.evaluate('globalThis.bench.latencies.splice(0)');
    const paged = summarizeLatencies(Float64Array.from(pageSamples));
    const jumpStarted = performance.now();
    await page.evaluate(`(() => { const viewport = ${viewport}; viewport.scrollTop = viewport.scrollHeight / 2; })()`);
    // Until a loaded row (not a placeholder) is drawn where the list now is.
    // (Polled from here: the page's CSP rightly forbids the string evaluation waitForFunction would need.)
    const isJumpDrawn = `(() => {
      const viewport = ${viewport};
      const top = viewport.scrollTop;
      return [...viewport.querySelectorAll('.row[data-id]')].some((row) => Math.abs(new DOMMatrixReadOnly(getComputedStyle(row).transform).m42 - top) < 60);
    })()`;
    while (!(await page.evaluate(isJumpDrawn))) {
      if (performance.now() - jumpStarted > 30_000) throw new Error('The rows of the middle of the list never showed.');
    }
    const jumpMs = performance.now() - jumpStarted;
    const pick = (s: ReturnType<typeof summarizeLatencies>, steps: number) => ({ steps, p50Ms: s.p50, p99Ms: s.p99, maxMs: s.max });
    return { records, skipped: null, indexMs, firstRowsMs, firstContentfulPaintMs, wheel: pick(wheel, wheelSamples.length), page: pick(paged, pageSamples.length), wheelLatency: pick(wheelLatency, latencySamples.length), jumpMs };
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
    await server.close();
  }
}
