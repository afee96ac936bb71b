import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { areaOf, findCycles, readImportGraph, type ImportGraph } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The layers of src/ (STYLE.md "Layout"): a file imports its own folder and
 * folders of lower layers only. Parts never import each other; the daemon
 * wires them with events.
 */
const LAYERS: ReadonlyArray<{ name: string; areas: readonly string[]; mayImport: readonly string[] }> = [
  { name: 'cli', areas: ['cli'], mayImport: ['daemon', 'parts', 'core', 'base'] },
  /** The browser inspector's page: a program of its own (bundled by Vite); like a part, it sees core and base only. */
  { name: 'page', areas: ['inspector'], mayImport: ['core', 'base'] },
  { name: 'daemon', areas: ['daemon'], mayImport: ['parts', 'core', 'base'] },
  {
    name: 'parts',
    areas: ['proxy', 'recorder', 'tunnel', 'tunnel-server', 'endpoints', 'emulator', 'control', 'tui', 'replay', 'watch', 'child', 'inspector-server', 'saved-calls'],
    mayImport: ['core', 'base'],
  },
  { name: 'core', areas: ['events', 'median', 'config', 'presentation'], mayImport: ['base'] },
  { name: 'base', areas: ['shared', 'platform'], mayImport: [] },
];
/** Inside the core layer: events and presentation may use median's types; median and config stand alone. */
const CORE_ORDER: Readonly<Record<string, readonly string[]>> = { events: ['median'], presentation: ['median'], median: [], config: [] };

function layerOf(area: string) {
  return LAYERS.find((layer) => layer.areas.includes(area));
}

/** Every import that breaks the layer rules, as `from → to (why)`. */
export function layerViolations(graph: ImportGraph): string[] {
  const problems: string[] = [];
  for (const [from, targets] of graph.imports) {
    const fromArea = areaOf(from);
    const fromLayer = layerOf(fromArea);
    if (!fromLayer) {
      problems.push(`${from}: src/${fromArea} is in no layer (add it to LAYERS)`);
      continue;
    }
    for (const to of targets) {
      const toArea = areaOf(to);
      if (toArea === fromArea) continue;
      const toLayer = layerOf(toArea);
      if (!toLayer) continue; // reported for its own files
      if (toLayer === fromLayer) {
        if (fromLayer.name === 'core' && CORE_ORDER[fromArea]?.includes(toArea)) continue;
        if (fromLayer.name === 'base' && fromArea === 'platform' && toArea === 'shared') continue;
        problems.push(`${from} → ${to} (a ${fromLayer.name} file imports another ${fromLayer.name} area)`);
      } else if (!fromLayer.mayImport.includes(toLayer.name)) {
        problems.push(`${from} → ${to} (a ${fromLayer.name} file imports the ${toLayer.name} layer above it)`);
      }
    }
  }
  return problems;
}

describe('the import rules of src/', () => {
  const graph = readImportGraph(ROOT);

  it('reads the whole tree', () => {
    expect(graph.files.length).toBeGreaterThan(100);
    expect(graph.imports.get('src/cli/main.ts')?.length).toBeGreaterThan(0);
  });

  it('has no part importing another part, and no lower layer importing a higher one', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(findCycles(graph)).toEqual([]);
  });
});

/** The areas a file of `area` may import (besides its own), as the layers allow. */
function importableFrom(area: string): string[] {
  const layer = layerOf(area)!;
  if (layer.name === 'base') return area === 'platform' ? ['shared'] : [];
  const below = layer.mayImport.flatMap((name) => LAYERS.find((l) => l.name === name)!.areas);
  return layer.name === 'core' ? [...(CORE_ORDER[area] ?? []), ...below] : below;
}

describe('each folder says what it is for and what it may import', () => {
  for (const area of LAYERS.flatMap((layer) => layer.areas)) {
    it(`src/${area}`, () => {
      // The folder's public face (index.ts), or its program's entry where it has none.
      let text: string;
      try {
        text = readFileSync(join(ROOT, 'src', area, 'index.ts'), 'utf8');
      } catch {
        text = readFileSync(join(ROOT, 'src', area, 'main.ts'), 'utf8');
      }
      const opening = text.replace(/^#!.*\n/, '').split('\n');
      expect(opening[0]).toMatch(new RegExp(`^// src/${area}: \\S`));
      const allowed = importableFrom(area);
      const says = allowed.length > 0 ? allowed.map((a) => `src/${a}`).join(', ') : 'nothing of src/';
      expect(opening[1]).toContain(`May import: ${says}`);
    });
  }
});

describe('the checks themselves', () => {
  const graphOf = (imports: Record<string, string[]>): ImportGraph => ({ files: Object.keys(imports), imports: new Map(Object.entries(imports)) });

  it.each([
    ['a part importing another part', { 'src/proxy/a.ts': ['src/tunnel/b.ts'], 'src/tunnel/b.ts': [] }],
    ['a core file importing a part', { 'src/median/a.ts': ['src/proxy/b.ts'], 'src/proxy/b.ts': [] }],
    ['shared importing median', { 'src/shared/a.ts': ['src/median/b.ts'], 'src/median/b.ts': [] }],
    ['a part importing the daemon', { 'src/tui/a.ts': ['src/daemon/b.ts'], 'src/daemon/b.ts': [] }],
    ['the inspector page importing a part', { 'src/inspector/views/a.ts': ['src/tui/b.ts'], 'src/tui/b.ts': [] }],
    ['the inspector page importing the daemon', { 'src/inspector/a.ts': ['src/daemon/b.ts'], 'src/daemon/b.ts': [] }],
    ['a part importing the inspector page', { 'src/tui/a.ts': ['src/inspector/b.ts'], 'src/inspector/b.ts': [] }],
    ['presentation importing a part', { 'src/presentation/a.ts': ['src/tui/b.ts'], 'src/tui/b.ts': [] }],
    ['a folder in no layer', { 'src/stuff/a.ts': [] }],
  ])('catches %s', (_name, imports) => {
    expect(layerViolations(graphOf(imports))).toHaveLength(1);
  });

  it('lets every part, the page and the CLI use presentation, and presentation use median', () => {
    const imports = { 'src/tui/a.ts': ['src/presentation/p.ts'], 'src/inspector/a.ts': ['src/presentation/p.ts'], 'src/cli/a.ts': ['src/presentation/p.ts'], 'src/presentation/p.ts': ['src/median/m.ts'], 'src/median/m.ts': [] };
    expect(layerViolations(graphOf(imports))).toEqual([]);
  });

  it('allows the daemon to import parts and parts to import core and base', () => {
    expect(layerViolations(graphOf({ 'src/daemon/a.ts': ['src/proxy/b.ts'], 'src/proxy/b.ts': ['src/median/c.ts', 'src/shared/d.ts'], 'src/median/c.ts': [], 'src/shared/d.ts': [] }))).toEqual([]);
  });

  it('finds a cycle of three files and a file importing itself', () => {
    const cycles = findCycles(graphOf({ 'src/cli/a.ts': ['src/cli/b.ts'], 'src/cli/b.ts': ['src/cli/c.ts'], 'src/cli/c.ts': ['src/cli/a.ts'], 'src/cli/d.ts': ['src/cli/d.ts'] }));
    expect(cycles).toEqual([['src/cli/a.ts', 'src/cli/b.ts', 'src/cli/c.ts'], ['src/cli/d.ts']]);
  });
});

describe('the size of src/ files', () => {
  it('has no file over 300 lines without a comment saying why ("Over 300 lines: …")', () => {
    const long = readImportGraph(ROOT)
      .files.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }))
      .filter(({ text }) => text.split('\n').length > 300 && !text.includes('Over 300 lines:'))
      .map(({ file }) => file);
    expect(long).toEqual([]);
  });
});
