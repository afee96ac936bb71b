import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const EXAMPLES = fileURLToPath(new URL('../../examples/frameworks/', import.meta.url));
/** The compiled lib/ (for the plain-JavaScript Express app): `npx tsc -p .` builds it. */
const COMPILED_LIB = fileURLToPath(new URL('../../dist/examples/frameworks/lib/', import.meta.url));

/**
 * One real framework app for `npm run test:frameworks`: its packages from
 * the registry (majors that run on Node 20), the example route from
 * examples/frameworks/<name> copied in as a user would, and the dev server
 * command median-dev starts. `restartsOnUrlChange` is what the restart
 * policy (src/child/dev-server-profiles.ts) does with it on auto.
 */
export interface FrameworkApp {
  name: string;
  /** The examples/frameworks folder it is built from (several apps may share one). */
  example: string;
  packages: string[];
  /** Where lib/ goes inside the app. */
  libDir: string;
  /** Copy the compiled .js lib instead of the .ts sources. */
  compiledLib?: boolean;
  /** Extra files, path → text. */
  files?: Record<string, string>;
  /** The example's config file that allows the tunnel's Host (Vite answers 403 to others): the test's domain is added. */
  allowedHostsIn?: string;
  /** The dev server command, given the port it is to listen on. */
  command(port: number): string[];
  /** What the policy recognises it as (the note's first words). */
  recognisedAs: string;
  restartsOnUrlChange: boolean;
  /** More `start` flags, given the app folder (another env file). */
  startArgs?: (dir: string) => string[];
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

export const FRAMEWORK_APPS: readonly FrameworkApp[] = [
  {
    name: 'Next.js 16 (Turbopack)',
    example: 'next',
    packages: ['next@16', 'react@19', 'react-dom@19', 'typescript@5', '@types/react@19', '@types/node@20'],
    libDir: 'lib',
    files: { 'app/layout.tsx': 'export default function RootLayout({ children }: { children: React.ReactNode }) {\n  return <html><body>{children}</body></html>;\n}\n' },
    command: (port) => [npx, 'next', 'dev', '--port', String(port), '--hostname', '127.0.0.1'],
    recognisedAs: 'next dev',
    restartsOnUrlChange: false,
  },
  {
    name: 'Next.js 16 (--webpack)',
    example: 'next',
    packages: ['next@16', 'react@19', 'react-dom@19', 'typescript@5', '@types/react@19', '@types/node@20'],
    libDir: 'lib',
    files: { 'app/layout.tsx': 'export default function RootLayout({ children }: { children: React.ReactNode }) {\n  return <html><body>{children}</body></html>;\n}\n' },
    command: (port) => [npx, 'next', 'dev', '--webpack', '--port', String(port), '--hostname', '127.0.0.1'],
    recognisedAs: 'next dev',
    restartsOnUrlChange: false,
  },
  {
    name: 'SvelteKit 2 (Vite 7)',
    example: 'sveltekit',
    packages: ['@sveltejs/kit@2', '@sveltejs/vite-plugin-svelte@6', 'svelte@5', 'vite@7'],
    libDir: 'src/lib',
    allowedHostsIn: 'vite.config.ts',
    files: {
      'svelte.config.js': 'export default { kit: {} };\n',
      'src/app.html': '<!doctype html><html><head>%sveltekit.head%</head><body><div>%sveltekit.body%</div></body></html>\n',
    },
    command: (port) => [npx, 'vite', 'dev', '--port', String(port), '--host', '127.0.0.1', '--strictPort'],
    recognisedAs: 'vite dev (SvelteKit)',
    restartsOnUrlChange: false,
  },
  {
    name: 'Nuxt 4',
    example: 'nuxt',
    packages: ['nuxt@~4.3.1'],
    libDir: 'server/lib',
    allowedHostsIn: 'nuxt.config.ts',
    files: {
      'app/app.vue': '<template><p>app</p></template>\n',
    },
    command: (port) => [npx, 'nuxt', 'dev', '--port', String(port), '--host', '127.0.0.1'],
    recognisedAs: 'nuxt dev',
    restartsOnUrlChange: true,
  },
  {
    name: 'Nuxt 4 (--env-file .env)',
    example: 'nuxt',
    packages: ['nuxt@~4.3.1'],
    libDir: 'server/lib',
    allowedHostsIn: 'nuxt.config.ts',
    // Node 20 itself reads a --env-file anywhere in its argv, after the script too, and exits when it is missing.
    files: { 'app/app.vue': '<template><p>app</p></template>\n', '.env': '# Nuxt reads this one\n' },
    command: (port) => [npx, 'nuxt', 'dev', '--port', String(port), '--host', '127.0.0.1'],
    // The one file Nuxt reloads: still restarted, since its reloaded server keeps the values nuxt dev started with.
    startArgs: (dir) => ['--env-file', join(dir, '.env')],
    recognisedAs: 'nuxt dev',
    restartsOnUrlChange: true,
  },
  {
    name: 'Express 5 (node --watch)',
    example: 'express',
    packages: ['express@5'],
    libDir: 'lib',
    compiledLib: true,
    command: () => [process.execPath, '--watch', 'server.js'],
    recognisedAs: 'node --watch',
    restartsOnUrlChange: true,
  },
  {
    name: 'Hono 4 (tsx watch)',
    example: 'hono',
    packages: ['hono@4', '@hono/node-server@1', 'tsx@4'],
    libDir: 'src/lib',
    command: () => [npx, 'tsx', 'watch', 'src/index.ts'],
    recognisedAs: 'tsx watch',
    restartsOnUrlChange: true,
  },
];

/** Builds the app in `dir` and installs its packages from the registry (the only step that needs the network). */
export async function createFrameworkApp(app: FrameworkApp, dir: string, tunnelDomain: string): Promise<{ installSeconds: number; versions: Record<string, string> }> {
  await cp(join(EXAMPLES, app.example), dir, { recursive: true });
  if (app.allowedHostsIn) {
    const config = join(dir, app.allowedHostsIn);
    const text = await readFile(config, 'utf8');
    if (!text.includes("allowedHosts: ['.loca.lt']")) throw new Error(`${app.allowedHostsIn} no longer allows .loca.lt`);
    await writeFile(config, text.replace("allowedHosts: ['.loca.lt']", `allowedHosts: ['.loca.lt', '.${tunnelDomain}']`));
  }
  const lib = join(dir, app.libDir);
  await mkdir(lib, { recursive: true });
  for (const name of ['median-handler', 'example-tools']) {
    const file = app.compiledLib ? `${name}.js` : `${name}.ts`;
    await cp(join(app.compiledLib ? COMPILED_LIB : join(EXAMPLES, 'lib'), file), join(lib, file));
  }
  for (const [path, text] of Object.entries(app.files ?? {})) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await writeFile(join(dir, 'package.json'), `${JSON.stringify({ name: `median-dev-${app.example}-app`, private: true, type: 'module' }, null, 2)}\n`);
  const startedAt = Date.now();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await promisify(execFile)(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error', ...app.packages], { cwd: dir, timeout: 600_000, shell: process.platform === 'win32' });
  const versions: Record<string, string> = {};
  for (const spec of app.packages.filter((p) => !p.startsWith('@types/') && !p.startsWith('typescript'))) {
    const name = spec.slice(0, spec.lastIndexOf('@'));
    versions[name] = (JSON.parse(await readFile(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  }
  return { installSeconds: (Date.now() - startedAt) / 1000, versions };
}
