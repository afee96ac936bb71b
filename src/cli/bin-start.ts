// What the CLI does before any other module of it loads (main.ts imports it first; the bundle loads its chunk
// before the others, rolldown.config.mjs): it tells a one-shot command, and in the bundled bin installs the code
// cache of its chunks (code-cache.ts). With main.ts, the only module that touches the process (argv, the exit).
import Module from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installCodeCache } from './code-cache.js';

/** `show` writes its answer and exits: it writes its output synchronously (main.ts). */
export const isOneShot = process.argv[2] === 'show';

const here = dirname(fileURLToPath(import.meta.url));
// Bundled, this module is in dist/bin/chunks/ with the chunks; run from dist/src/cli/ (the tests), there is no bundle to cache.
// Every command: none sets a V8 option at run time (V8 binds a cache to its flags; main.ts). `show` and `start` keep
// caches of their own, every other command shares one kind.
const command = process.argv[2];
if (basename(here) === 'chunks') {
  const kind = command === 'show' || command === 'start' ? command : 'other';
  const cache = installCodeCache({ loader: Module, chunksDir: here, cacheDir: join(here, '..', '.code-cache'), v8: process.versions.v8, kind });
  process.once('exit', () => cache.save());
}
