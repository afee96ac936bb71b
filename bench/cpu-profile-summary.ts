/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and tells where the time went:
 * self time per function and per area (median-dev's src/proxy, src/recorder,
 * src/median, http-proxy-3, Node's http internals, GC, idle, …).
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  name: string;
  ms: number;
  /** Of the busy (non-idle) time. */
  percent: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  busyMs: number;
  /** Self time by area. */
  areas: ProfileShare[];
  /** Self time by function. */
  functions: ProfileShare[];
  /** Time spent in (and under) median-dev's own functions, by function. */
  ownInclusive: ProfileShare[];
}

export function areaOf(url: string, functionName: string): string {
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(program)') return 'V8/native (program)';
  if (url.includes('/src/proxy/')) return 'median-dev src/proxy';
  if (url.includes('/src/recorder/')) return 'median-dev src/recorder';
  if (url.includes('/src/median/')) return 'median-dev src/median';
  if (url.includes('/src/')) return 'median-dev other';
  if (url.includes('http-proxy-3')) return 'http-proxy-3';
  if (url.includes('/bench/')) return 'bench harness';
  if (/^node:(_http|http|net|stream|internal\/(http|streams|stream_base|net|js_stream))/.test(url) || url.includes('internal/http')) return 'node http/net/streams';
  if (url.startsWith('node:internal/fs') || url.startsWith('node:fs')) return 'node fs';
  if (url.startsWith('node:')) return 'node other';
  if (url === '') return 'native/builtins';
  return 'other';
}

function shortUrl(url: string): string {
  const at = url.search(/\/(src|bench|node_modules)\//);
  return at >= 0 ? url.slice(at + 1) : url;
}

function functionKey(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ''}`.trim();
}

function isOwnCode(url: string): boolean {
  return url.startsWith('file:') && url.includes('/src/') && !url.includes('/node_modules/');
}

export async function summarizeCpuProfile(file: string, top = 15): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const selfUs = new Map<number, number>();
  const ownUs = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
    // Inclusive time: each of our functions on this sample's stack, once.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const node = byId.get(at);
      if (!node || !isOwnCode(node.callFrame.url)) continue;
      const key = functionKey(node);
      if (seen.has(key)) continue;
      seen.add(key);
      ownUs.set(key, (ownUs.get(key) ?? 0) + delta);
    }
  });
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url } = node.callFrame;
    const area = areaOf(url, functionName);
    totalUs += us;
    if (area === 'idle') {
      idleUs += us;
      continue;
    }
    areas.set(area, (areas.get(area) ?? 0) + us);
    const key = functionKey(node);
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
  const busyUs = totalUs - idleUs;
  const shares = (map: Map<string, number>, limit: number): ProfileShare[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, us]) => ({ name, ms: us / 1000, percent: busyUs > 0 ? (us / busyUs) * 100 : 0 }));
  return {
    file,
    totalMs: totalUs / 1000,
    busyMs: busyUs / 1000,
    areas: shares(areas, 20),
    functions: shares(functions, top),
    ownInclusive: shares(ownUs, top),
  };
}

/** The newest .cpuprofile in a folder, if any. */
export async function newestProfileIn(dir: string): Promise<string | undefined> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.cpuprofile')).sort();
  const last = names.at(-1);
  return last ? join(dir, last) : undefined;
}
