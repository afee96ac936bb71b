import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of src/: which file imports which (value and type imports
 * alike), read with TypeScript's own pre-processor, so the check needs no
 * build. Paths are relative to the repository, with `/`.
 */
export interface ImportGraph {
  files: string[];
  imports: Map<string, string[]>;
}

function listTsFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...listTsFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

export function readImportGraph(root: string, folder = 'src'): ImportGraph {
  const toKey = (path: string) => relative(root, path).split(sep).join('/');
  const files = listTsFiles(join(root, folder)).map(toKey).sort();
  const known = new Set(files);
  const imports = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets: string[] = [];
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue; // a package or node: builtin
      const target = toKey(resolve(dirname(join(root, file)), ref.fileName.replace(/\.js$/, '.ts')));
      if (known.has(target)) targets.push(target);
    }
    imports.set(file, targets);
  }
  return { files, imports };
}

/** The folder under src/ a file lives in (`src/proxy/x.ts` → `proxy`). */
export function areaOf(file: string): string {
  return file.split('/')[1] ?? '';
}

/** Every cycle's files (strongly connected components of more than one file, or a file importing itself). */
export function findCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm.
  let index = 0;
  const indexOf = new Map<string, number>();
  const lowOf = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    indexOf.set(file, index);
    lowOf.set(file, index);
    index += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.imports.get(file) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        lowOf.set(file, Math.min(lowOf.get(file)!, lowOf.get(next)!));
      } else if (onStack.has(next)) {
        lowOf.set(file, Math.min(lowOf.get(file)!, indexOf.get(next)!));
      }
    }
    if (lowOf.get(file) === indexOf.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.imports.get(file) ?? []).includes(file)) cycles.push(component.sort());
    }
  };
  for (const file of graph.files) if (!indexOf.has(file)) visit(file);
  return cycles;
}
