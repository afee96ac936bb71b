import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { packageRoot } from '../shared/package-root.js';

/** A built file of the page, held in memory. */
export interface Asset {
  body: Buffer;
  contentType: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

/**
 * Where `npm run build` puts the page (Vite's output): `dist/inspector` in
 * the package, whether the server runs compiled (dist/src/…), bundled into
 * the CLI (dist/bin/…) or from its TypeScript sources (tests).
 */
export function defaultAssetDir(): string {
  return join(packageRoot(import.meta.url), 'dist', 'inspector');
}

/** Every file under `dir`, by URL path (`/index.html`, `/assets/x.js`); empty when the page was not built. */
export async function loadAssets(dir: string): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const urlPath = `/${relative(dir, path).split(sep).join('/')}`;
    const contentType = CONTENT_TYPES[extname(entry.name)];
    if (contentType === undefined) continue;
    assets.set(urlPath, { body: await readFile(path), contentType });
  }
  return assets;
}
