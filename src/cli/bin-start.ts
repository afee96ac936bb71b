// What the CLI does before any other module of it loads (main.ts imports it first; the bundle loads its chunk
// before the others, rolldown.config.mjs): it tells a one-shot command, and for it, in the bundled bin, installs the
// code cache of its chunks (code-cache.ts). With main.ts, the only module that touches the process (argv, the exit).
import Module from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installCodeCache } from './code-cache.js';

/**
 * `show` writes its answer and exits: it sets no V8 option at run time
 * (main.ts), writes its output synchronously, and saves the code cache.
 */
export const isOneShot = process.argv[2] === 'show';

const here = dirname(fileURLToPath(import.meta.url));
// Bundled, this module is in dist/bin/chunks/ with the chunks; run from dist/src/cli/ (the tests), there is no bundle to cache.
// Only for `show`, which reads and saves the caches with V8's flags as they were when its chunks were compiled (V8 binds a
// cache to them): every other command sets --liftoff-only after the first chunk, and `start`, measured with the hook
// installed, gained nothing (alternated starts: first event 188 against 186 ms, synced within the host's noise).
if (isOneShot && basename(here) === 'chunks') {
  const cache = installCodeCache({ loader: Module, chunksDir: here, cacheDir: join(here, '..', '.code-cache'), tag: process.versions.v8 });
  process.once('exit', () => cache.save());
}
