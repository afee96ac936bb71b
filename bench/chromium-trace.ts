/**
 * A Chrome trace of what a page does meanwhile (CDP Tracing, the DevTools
 * Performance panel's categories), written to a file DevTools opens, and a
 * summary: where the renderer's main thread spent the time (script, style,
 * layout, paint, GC) and the longest frames' tasks. For `npm run
 * bench:inspector -- --trace <file>`.
 */
import { writeFile } from 'node:fs/promises';
import type { CDPSession, Page } from 'playwright-core';
import { summarizeLatencies, type LatencySummary } from './percentiles.js';

interface TraceEvent {
  name: string;
  ph: string;
  dur?: number;
  /** Thread (CPU) time, µs: without the time the thread waited for a core. */
  tdur?: number;
  tid: number;
  pid: number;
  args?: { data?: { frame?: string } };
}

export interface TraceSummary {
  /** Self-reported duration by event name on the renderer's main thread, ms, largest first. */
  byName: Array<{ name: string; ms: number; count: number }>;
  /** The longest top-level tasks on that thread, ms. */
  longestTasksMs: number[];
  /** The main-thread frames (BeginMainFrame: frame callbacks, style, layout, paint), wall clock and thread (CPU) time, ms. */
  frames: { count: number; wall: LatencySummary; cpu: LatencySummary };
}

const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink', 'cc', 'gpu'].join(',');

export async function traceWhile(page: Page, file: string, work: () => Promise<void>): Promise<TraceSummary> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (message) => void events.push(...(message.value as unknown as TraceEvent[])));
  const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  await work();
  await cdp.send('Tracing.end');
  await complete;
  await cdp.detach();
  await writeFile(file, JSON.stringify({ traceEvents: events }));
  return summarize(events);
}

function summarize(events: TraceEvent[]): TraceSummary {
  // The renderer's main thread: the one running the page's scroll and frame callbacks.
  const main = events.find((e) => e.name === 'FireAnimationFrame' || e.name === 'EventDispatch');
  const onMain = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && typeof e.dur === 'number');
  const totals = new Map<string, { ms: number; count: number }>();
  for (const event of onMain) {
    const total = totals.get(event.name) ?? { ms: 0, count: 0 };
    total.ms += event.dur! / 1000;
    total.count += 1;
    totals.set(event.name, total);
  }
  const byName = [...totals].map(([name, t]) => ({ name, ...t })).sort((a, b) => b.ms - a.ms);
  const longestTasksMs = onMain
    .filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask')
    .map((e) => e.dur! / 1000)
    .sort((a, b) => b - a)
    .slice(0, 10);
  const frames = onMain.filter((e) => e.name === 'ProxyMain::BeginMainFrame');
  return {
    byName: byName.slice(0, 25),
    longestTasksMs,
    frames: {
      count: frames.length,
      wall: summarizeLatencies(Float64Array.from(frames, (e) => e.dur! / 1000)),
      cpu: summarizeLatencies(Float64Array.from(frames, (e) => (e.tdur ?? e.dur!) / 1000)),
    },
  };
}
