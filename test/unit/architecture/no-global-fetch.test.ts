import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SRC = join(ROOT, 'src');
/** The inspector's page runs in the browser, where fetch is the way to ask its server. */
const BROWSER_CODE = join(SRC, 'inspector');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === BROWSER_CODE ? [] : tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each use of the global `fetch` as a value (a call, or handed on), as `file:line`; types (`typeof fetch`) and property names are not. */
function globalFetchUses(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isTypeNode(node)) return; // `typeof fetch` in a type loads nothing
    const isGlobalFetch =
      (ts.isIdentifier(node) && node.text === 'fetch' && !isPropertyName(node)) ||
      (ts.isPropertyAccessExpression(node) && node.name.text === 'fetch' && ts.isIdentifier(node.expression) && node.expression.text === 'globalThis');
    if (isGlobalFetch) found.push(`${relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    else ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `options.fetch`, `{ fetch: … }`, `fetch?: …` in an interface: a name, not the global. */
function isPropertyName(node: ts.Identifier): boolean {
  const parent = node.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
    ((ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent)) && parent.name === node)
  );
}

describe('the Node side of median-dev', () => {
  // A process's first fetch loads Node's bundled undici (40–55 ms of a core, on start's critical path in the
  // daemon) and, while one is pending, ticks its 500 ms timer: every request goes through src/shared/http-fetch.ts.
  it('uses no global fetch: its requests go through httpFetch (Node’s own HTTP client)', () => {
    const files = tsFiles(SRC);
    expect(files.length).toBeGreaterThan(100); // the tree was read
    expect(files.flatMap(globalFetchUses)).toEqual([]);
  });
});
