import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * A V8 code cache for the bundled bin's chunks (dist/bin/chunks/*.js), as
 * Node 22's module.enableCompileCache() keeps one (Node 20 has none): each
 * chunk is compiled with the cache a run of the bin saved for it, so V8
 * deserialises its functions instead of parsing its JavaScript (~350 KB
 * for `show`, ~1 MB for `start`) and compiling what the command runs of it
 * at every start (the bin's V8 options already cost Node the cache of its
 * own built-ins). On `show` on 100,000 records: median 156.0 → 147.7 ms;
 * `start` → endpoint synced 499 → 458 ms (BENCHMARKS.md, Kept).
 *
 * A cache file is named after its chunk (whose name carries a hash of its
 * content: a rebuilt chunk has a new name), V8's version and the kind of
 * run that made it (a cache holds the functions its run compiled, and
 * `show` and `start` share the CLI's chunk but little of its code), and V8 checks
 * the rest itself (its flags, the source's length) and rejects a cache that
 * does not fit; a rejected or missing one is compiled as without it and
 * saved anew. V8 does not check the cache's own bytes (its checksum is
 * made and checked only in debug builds): a corrupt cache made V8 abort, or
 * could run other bytecode than the chunk's. So the file holds the cache
 * twice and is used only when both copies are the same: a compare of
 * memory, where a checksum in JavaScript (3–5 ms at start-up), WebAssembly
 * (2.4–3 ms) or node:zlib's crc32 (loading zlib: 9 ms) cost more than the
 * cache saved. The caches live beside the chunks (dist/bin/.code-cache/,
 * which each build empties): whoever may write there may change the chunks
 * themselves, so a cache is trusted as far as the code is. Where the folder
 * cannot be written (a global install by another user), nothing is saved.
 */

/** What this needs of node:module (its CommonJS loader, whose _compile is undocumented but stable since Node 0.x). */
interface CommonJsLoader {
  wrap(script: string): string;
  prototype: { _compile(this: LoadedModule, content: string, filename: string, ...rest: unknown[]): unknown };
}

interface LoadedModule {
  exports: unknown;
  require(id: string): unknown;
}

export interface CodeCacheOptions {
  /** node:module itself. */
  loader: unknown;
  /** The folder of the chunks to cache (others are compiled by Node as always). */
  chunksDir: string;
  /** Where the caches are kept. */
  cacheDir: string;
  /** V8's version: a cache made by another V8 is removed. */
  v8: string;
  /** The kind of run (lower-case letters: `show`, `start`, `other`); each kind keeps its own cache of a chunk. */
  kind: string;
}

export interface CodeCache {
  /**
   * Writes the caches of the chunks compiled without one (or with one V8
   * rejected), each with every function this run compiled of it; removes
   * the caches of chunks no longer there and of another V8. Only call it
   * while V8's flags are what they were when the chunks were compiled
   * (V8 binds a cache to them). Never throws.
   */
  save(): void;
}

/** What a cache file starts with; then the cache, twice. */
const HEADER = Buffer.from('median-dev code cache 1\n', 'latin1');

/** The cache in a file's bytes, when the file is whole (its two copies the same); undefined otherwise. */
export function cacheInFile(file: Buffer): Buffer | undefined {
  const length = (file.length - HEADER.length) / 2;
  if (!Number.isInteger(length) || length <= 0 || !file.subarray(0, HEADER.length).equals(HEADER)) return undefined;
  const cache = file.subarray(HEADER.length, HEADER.length + length);
  return cache.equals(file.subarray(HEADER.length + length)) ? cache : undefined;
}

/** A cache file's bytes. */
export function fileOfCache(cache: Buffer): Buffer {
  return Buffer.concat([HEADER, cache, cache]);
}

export function installCodeCache(options: CodeCacheOptions): CodeCache {
  const loader = options.loader as CommonJsLoader;
  const previous = loader.prototype._compile;
  const missed: Array<{ script: Script; file: string }> = [];
  const cacheFileOf = (chunk: string): string => join(options.cacheDir, `${chunk}.${options.v8}.${options.kind}.cache`);

  loader.prototype._compile = function compileWithCache(content, filename, ...rest) {
    if (dirname(filename) !== options.chunksDir) return previous.call(this, content, filename, ...rest);
    const file = cacheFileOf(basename(filename));
    let cachedData: Buffer | undefined;
    try {
      cachedData = cacheInFile(readFileSync(file));
    } catch {
      cachedData = undefined; // none yet: compiled from source, saved by `save`
    }
    // No importModuleDynamically: a script compiled from a cache loses that callback in Node 20, and the chunks have no
    // import() (rolldown.config.mjs loads lazy packages with require()).
    const script = new Script(loader.wrap(content), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected === true) missed.push({ script, file });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    // As Node's own require for the module: its calls go through the module (its parent and children kept), resolve and the rest as createRequire gives them.
    const module = this;
    const require = Object.assign((id: string) => module.require(id), createRequire(filename));
    return wrapper.call(module.exports, module.exports, require, module, filename, dirname(filename));
  };

  return {
    save() {
      if (missed.length === 0) return;
      try {
        mkdirSync(options.cacheDir, { recursive: true, mode: 0o700 });
        removeStale(options.cacheDir, options.chunksDir, options.v8);
      } catch {
        return; // a folder this user cannot write: no cache, as before
      }
      for (const { script, file } of missed.splice(0)) {
        // A new file (never one planted under that name) renamed over the old: a reader sees the old cache or the new one.
        const temporary = `${file}.tmp-${Math.random().toString(36).slice(2)}`;
        try {
          writeFileSync(temporary, fileOfCache(script.createCachedData()), { mode: 0o600, flag: 'wx' });
          renameSync(temporary, file);
        } catch {
          try {
            unlinkSync(temporary);
          } catch {
            // never made, or renamed already: nothing to remove
          }
        }
      }
    },
  };
}

/** Removes the caches of chunks no longer in `chunksDir` (an older build) or made for another V8 (or named as no cache now is). */
function removeStale(cacheDir: string, chunksDir: string, v8: string): void {
  const chunks = new Set(readdirSync(chunksDir));
  for (const name of readdirSync(cacheDir)) {
    if (name.includes('.cache.tmp-')) continue; // another run's, being written
    const match = /^(.+\.js)\.(.+)\.([a-z]+)\.cache$/.exec(name);
    if (match && chunks.has(match[1]!) && match[2] === v8) continue;
    try {
      unlinkSync(join(cacheDir, name));
    } catch {
      // gone meanwhile (another run saving too): nothing to remove
    }
  }
}
