import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** What `npm pack` puts in the tarball a user installs (no scripts run: dist/ is built by the suite). */
function packedFiles(): string[] {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const [pack] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
  return pack!.files.map((file) => file.path);
}

describe('the npm package', () => {
  const files = packedFiles();

  it('holds every file the README links to', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((link) => !/^[a-z]+:/.test(link));
    expect(links.length).toBeGreaterThan(3);
    for (const link of links) expect(files, link).toContain(normalize(link).replace(/\\/g, '/'));
    expect(files).toEqual(expect.arrayContaining(['docs/cli.md', 'docs/recordings.md', 'docs/inspector.md', 'dist/src/cli/main.js', 'dist/bin/median-dev.js']));
  });

  it('ships the bin it names (the bundled CLI) with the chunks it imports', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(files).toContain(pkg.bin['median-dev']);
    const entry = readFileSync(join(ROOT, pkg.bin['median-dev']!), 'utf8');
    const chunks = [...entry.matchAll(/require\("\.\/(chunks\/[^"]+\.js)"\)/g)].map((m) => `dist/bin/${m[1]!}`);
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) expect(files).toContain(chunk);
    expect(files).toContain('dist/bin/package.json'); // without it, Node would load the CommonJS bundle as ES modules
  });

  it('ships beside the bin the licence of each package bundled into it', () => {
    const bin = join(ROOT, 'dist/bin');
    const maps = readdirSync(bin, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js.map'));
    const sources = maps.flatMap((file) => (JSON.parse(readFileSync(join(bin, file), 'utf8')) as { sources: string[] }).sources);
    const bundled = new Set(sources.map((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1]).filter((name) => name !== undefined));
    expect([...bundled].sort()).toEqual(['commander', 'dotenv']);
    expect(files).toContain('dist/bin/THIRD-PARTY-LICENSES.txt');
    const notices = readFileSync(join(bin, 'THIRD-PARTY-LICENSES.txt'), 'utf8');
    for (const name of bundled) {
      const licence = readFileSync(join(ROOT, 'node_modules', name, 'LICENSE'), 'utf8').trim();
      expect(notices, name).toContain(licence);
    }
  });

  it('runs nothing when installed: the build is for git checkouts and npm pack (prepack)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[hook], hook).toBeUndefined();
    expect(pkg.scripts.prepack).toContain('npm run build');
  });
});
