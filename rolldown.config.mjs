// The CLI as users run it (package.json's bin): src/cli/main.ts and the
// modules of ours it imports, bundled into dist/bin/ so a command resolves,
// reads and compiles a few files of ours instead of 70–300 ES modules (each
// costs its resolve, read and compile at start-up). Every package stays
// external, loaded from node_modules as before: blessed requires its parts
// dynamically, ws has optional native parts, @ngrok/ngrok is an optional
// native dependency loaded only when chosen. But for BUNDLED_PACKAGES:
// commander (every command parses its argv with it) and dotenv (every command
// reads the env file) are plain JavaScript with no native part and no dynamic
// require, and as packages of their own cost ~26 ms per command (their CommonJS
// files resolved, read and compiled one by one); their licence notices go in
// dist/bin/THIRD-PARTY-LICENSES.txt beside the bundle (their sources carry no
// @license comment rolldown's legal-comments option would keep). The entry's
// shebang line is carried over as main.ts has it (node flags included).
//
// The bundle is CommonJS (dist/bin/package.json says so for its .js files, in
// a package that is "type": "module"): an ES module entry makes Node load and
// compile its ES module loader (~10 built-in modules) at every start, which
// with the bin's V8 options (no code cache for built-ins) cost every command
// ~10 ms; a CommonJS main needs none of it. import() of our chunks becomes a
// require() in a promise, still lazy; a package stays external (chokidar,
// ES-only, is loaded by require() of an ES module: Node >= 20.19).
//
// Chunks (TIERS below): the code cache's loader (src/cli/bin-start.ts, loaded before any other chunk so
// each is compiled with its cache: src/cli/code-cache.ts), what every command loads, what `show` and `calls`
// add, `start`'s own, the daemon's own and what it shares with other
// commands. Every import() stays lazy: a command loads its chunks only, the
// daemon's are loaded by `start`'s import() alone, and the TUI (blessed), the
// inspector server, `calls -f`'s watcher and the emulator stay chunks of their
// own (test/e2e/cli/bundled-cli.test.ts). rolldown comes with vite (the
// inspector's build): no dependency of its own.
import { chmodSync, readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'rolldown';

const ROOT = fileURLToPath(new URL('.', import.meta.url));
const ENTRY = `${ROOT}src/cli/main.ts`;
const DAEMON = `${ROOT}src/daemon/start-daemon.ts`;
/**
 * Packages (imported statically) that only the daemon and `calls -f` need. (http-proxy-3 was one; the
 * proxy now loads it with import() at the first WebSocket upgrade, src/proxy/http-proxy.ts.)
 */
const HEAVY_PACKAGES = new Set(['chokidar']);
/** Packages bundled into dist/bin/ (with their subpaths); every other one stays external. */
const BUNDLED_PACKAGES = ['commander', 'dotenv'];
const isBundledPackage = (id) => BUNDLED_PACKAGES.some((name) => id === name || id.startsWith(`${name}/`));

/**
 * dist/bin/THIRD-PARTY-LICENSES.txt: the name, version, licence and licence
 * file of each package with a module in the bundle (found from the chunks'
 * module ids, so a package bundled later is listed without another step).
 */
function bundledLicenses() {
  return {
    name: 'bundled-licenses',
    generateBundle(_options, bundle) {
      const roots = new Set();
      for (const chunk of Object.values(bundle)) {
        for (const id of chunk.type === 'chunk' ? chunk.moduleIds : []) {
          const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(id);
          if (match) roots.add(match[1]);
        }
      }
      const notices = [...roots].sort().map((root) => {
        const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
        const file = readdirSync(root).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
        if (!file) throw new Error(`${pkg.name} is bundled into dist/bin/ and has no licence file to ship beside it`);
        return `${pkg.name}@${pkg.version} (${pkg.license})\n\n${readFileSync(join(root, file), 'utf8').trim()}\n`;
      });
      const source = `The median-dev bin (this folder) bundles these packages; each is used under its licence below.\n\n${notices.join(`\n${'-'.repeat(72)}\n\n`)}`;
      this.emitFile({ type: 'asset', fileName: 'THIRD-PARTY-LICENSES.txt', source });
    },
  };
}
/**
 * The built-ins a bundled package requires at its top but uses in one rare
 * path, each made to load on first use: commander spawns a child only for an
 * executable subcommand (we have none), dotenv needs os for a `~` path and
 * crypto to decrypt a vault (we call neither). The bin runs with V8 options,
 * which make Node 20 compile every built-in it loads from source (no code
 * cache), so these cost every command ~5–8 ms of start-up: `node:crypto` alone
 * is 18 modules. Each line is replaced in place (the sourcemap stays right);
 * a line not found fails the build, so a new version of the package is looked
 * at again. test/e2e/cli/show-built-ins.test.ts checks `show` loads neither.
 */
const LAZY_BUILTIN_LINES = [
  { file: /[\\/]commander[\\/]lib[\\/]command\.js$/, line: "const childProcess = require('node:child_process');" },
  { file: /[\\/]dotenv[\\/]lib[\\/]main\.js$/, line: "const os = require('os')" },
  { file: /[\\/]dotenv[\\/]lib[\\/]main\.js$/, line: "const crypto = require('crypto')" },
];
/**
 * `node:fs/promises` in our own chunks, the same way: loaded on its first
 * call. Node's internal fs/promises brings readline's interface, fs watchers
 * and streams with it (8 modules compiled from source under the bin's V8
 * options); `show` reads with synchronous calls and needs none of it. A chunk
 * calls it as `(0, node_fs_promises.readFile)(…)`, a property read each time.
 */
const LAZY_IN_CHUNKS = /^(let|const|var) (\w+) = require\("node:fs\/promises"\);$/gm;
function lazyBuiltins() {
  return {
    name: 'lazy-builtins',
    renderChunk(code) {
      if (!LAZY_IN_CHUNKS.test(code)) return null;
      LAZY_IN_CHUNKS.lastIndex = 0;
      const out = code.replace(LAZY_IN_CHUNKS, (_, kind, name) => `${kind} ${name} = new Proxy({}, { get: (_, key) => require("node:fs/promises")[key] });`);
      return { code: out, map: null };
    },
    transform(code, id) {
      const lines = LAZY_BUILTIN_LINES.filter((each) => each.file.test(id));
      if (lines.length === 0) return null;
      let out = code;
      for (const { line } of lines) {
        const match = /^const (\w+) = require\(('[^']+')\);?$/.exec(line);
        if (!out.includes(line)) throw new Error(`${id} no longer has the line \`${line}\` (rolldown.config.mjs LAZY_BUILTIN_LINES): look at how it loads that built-in now`);
        // A property read loads the built-in then; `this` is not used by any function these packages call on it.
        out = out.replace(line, `const ${match[1]} = new Proxy({}, { get: (_, key) => require(${match[2]})[key] });`);
      }
      return { code: out, map: null };
    },
  };
}

/**
 * Fails the build on a dynamic import() left in a chunk (outside a comment):
 * the chunks run compiled from their code cache through node:vm, where
 * import() has no callback in Node 20 (output.dynamicImportInCjs says why).
 */
function noDynamicImport() {
  return {
    name: 'no-dynamic-import',
    renderChunk(code, chunk) {
      const line = code.split('\n').find((text) => /\bimport\s*\(/.test(text) && !/^\s*(\*|\/\/|\/\*)/.test(text));
      if (line !== undefined) this.error(`${chunk.fileName} has a dynamic import(), which fails in a chunk compiled from its code cache (src/cli/code-cache.ts): ${line.trim().slice(0, 160)}`);
      return null;
    },
  };
}

/** dist/bin/package.json: the bundle's .js files are CommonJS (the package's own package.json says module). */
function commonJsMarker() {
  return {
    name: 'commonjs-marker',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'package.json', source: '{ "type": "commonjs" }\n' });
    },
  };
}

/**
 * The bin is executable once built, as npm makes it once installed: a checkout
 * runs `./dist/bin/median-dev.js` (and the kernel reads its shebang's node
 * options) without `npm link`. A no-op on Windows, where npm's shim runs it.
 */
function executableBin() {
  return {
    name: 'executable-bin',
    writeBundle(options) {
      chmodSync(join(options.dir, 'median-dev.js'), 0o755);
    },
  };
}

/**
 * The chunks of ours, each the static imports (all the way down) of its
 * roots, less what an earlier one took: what every command loads (the
 * entry's imports), then what `show` and `calls` add (the lookups users run
 * most), then `start`'s own, then what only the daemon needs. Everything else
 * is chunked by rolldown as its import() calls ask.
 */
const TIERS = [
  // Loaded before every other chunk (main.ts imports it first): it installs the code cache they are compiled with.
  { name: 'bin-start', roots: [`${ROOT}src/cli/bin-start.ts`] },
  { name: 'cli', roots: [ENTRY] },
  { name: 'lookups', roots: ['show-command.ts', 'calls-command.ts'].map((file) => `${ROOT}src/cli/commands/${file}`) },
  { name: 'start', roots: [`${ROOT}src/cli/commands/start-command.ts`] },
];

/** Each module of ours the entry reaches (statically or by import()) with what it imports statically, and the import() targets. */
function graphOf(ctx) {
  const graph = new Map();
  const dynamicRoots = new Set();
  const pending = [ENTRY];
  while (pending.length > 0) {
    const id = pending.pop();
    const info = graph.has(id) ? undefined : ctx.getModuleInfo(id);
    if (!info || info.isExternal) continue;
    graph.set(id, info.importedIds);
    for (const target of info.dynamicallyImportedIds) dynamicRoots.add(target);
    pending.push(...info.importedIds, ...info.dynamicallyImportedIds);
  }
  return { graph, dynamicRoots };
}

/** The static imports, all the way down, of `roots`; a module in `stops` is neither taken nor followed. */
function closureOf(graph, roots, stops = new Set()) {
  const found = new Set();
  const pending = [...roots];
  while (pending.length > 0) {
    const id = pending.pop();
    if (found.has(id) || stops.has(id) || !graph.has(id)) continue;
    found.add(id);
    pending.push(...graph.get(id));
  }
  return found;
}

/** Which chunk each module of a tier goes to; the entry itself stays in its own file (it runs the command, which imports the chunks). */
function tiersOf(graph, dynamicRoots) {
  const chunkOf = new Map();
  for (const tier of TIERS) {
    for (const id of closureOf(graph, tier.roots)) if (id !== ENTRY && !chunkOf.has(id)) chunkOf.set(id, tier.name);
  }
  // What only the daemon needs: its static imports less what the entry or any other import() reaches without it.
  const others = closureOf(graph, [ENTRY, ...[...dynamicRoots].filter((id) => id !== DAEMON)], new Set([DAEMON]));
  const daemon = closureOf(graph, [DAEMON]);
  for (const id of daemon) if (!others.has(id) && !chunkOf.has(id)) chunkOf.set(id, 'daemon');
  // What the daemon shares with other commands (doctor's tunnel checks, replay's proxy, …) in one chunk, but
  // for what loads a heavy package (chokidar): a command needing one of the others must not load it.
  const heavy = new Set([...graph.keys()].filter((id) => [...closureOf(graph, [id])].some((dep) => graph.get(dep).some((pkg) => HEAVY_PACKAGES.has(pkg)))));
  for (const id of daemon) if (!chunkOf.has(id) && !heavy.has(id)) chunkOf.set(id, 'parts');
  return chunkOf;
}

let chunkOf;
function chunkNameOf(id, ctx, name) {
  if (!chunkOf) {
    const { graph, dynamicRoots } = graphOf(ctx);
    chunkOf = tiersOf(graph, dynamicRoots);
  }
  return chunkOf.get(id) === name ? name : null;
}

export default defineConfig({
  input: { 'median-dev': ENTRY },
  platform: 'node',
  // The entry exports nothing; chunks may share what they export (the daemon group needs it).
  preserveEntrySignatures: 'allow-extension',
  // Ours is relative or absolute; a bare name (a package, node:*) stays an import at run time, but for BUNDLED_PACKAGES.
  external: (id, importer) => importer !== undefined && !id.startsWith('.') && !isAbsolute(id) && !isBundledPackage(id),
  plugins: [lazyBuiltins(), noDynamicImport(), bundledLicenses(), commonJsMarker(), executableBin()],
  output: {
    dir: 'dist/bin',
    format: 'cjs',
    // A package loaded lazily (http-proxy-3 at the first WebSocket upgrade, @ngrok/ngrok when chosen) by require() in a
    // promise, not import(): the chunks are compiled through node:vm with their code cache (src/cli/code-cache.ts), and in
    // Node 20 a script compiled from a cache has lost its dynamic-import callback (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING),
    // while the callback that worked without a cache printed an ExperimentalWarning. No import() is left in a chunk
    // (noDynamicImport below fails the build on one).
    dynamicImportInCjs: false,
    sourcemap: true,
    cleanDir: true,
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    codeSplitting: {
      groups: [
        ...TIERS.map((tier, i) => ({ debugName: tier.name, name: (id, ctx) => chunkNameOf(id, ctx, tier.name), priority: TIERS.length + 1 - i })),
        // Not its imports: those the daemon shares with other commands stay where rolldown puts them.
        { debugName: 'daemon', name: (id, ctx) => chunkNameOf(id, ctx, 'daemon'), priority: 1, includeDependenciesRecursively: false },
        { debugName: 'parts', name: (id, ctx) => chunkNameOf(id, ctx, 'parts'), priority: 0, includeDependenciesRecursively: false },
      ],
    },
  },
});
