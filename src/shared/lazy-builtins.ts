/**
 * Node built-ins that the lookups (`show`, `calls`) reach through modules
 * they import but rarely call: crypto (HMACs of a key, a temp name, a skipped
 * line's hash) and child_process (a platform helper running a program). The
 * bin runs with V8 options (its shebang), and any V8 option makes Node 20
 * reject the code cache of its own built-ins: each one loaded is compiled
 * from source at start, ~18 modules for `node:crypto` alone. A static import
 * would load them for every command; these load them on their first call.
 * test/e2e/cli/show-built-ins.test.ts checks `show` loads neither.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);
let crypto: typeof import('node:crypto') | undefined;
let childProcess: typeof import('node:child_process') | undefined;

/** `node:crypto`, loaded on the first call. */
export function nodeCrypto(): typeof import('node:crypto') {
  return (crypto ??= load('node:crypto') as typeof import('node:crypto'));
}

/** `node:child_process`, loaded on the first call. */
export function nodeChildProcess(): typeof import('node:child_process') {
  return (childProcess ??= load('node:child_process') as typeof import('node:child_process'));
}
