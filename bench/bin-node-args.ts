/**
 * How the installed bin runs the CLI: the node options on the first line of
 * the built entry (`#!/usr/bin/env -S node --max-semi-space-size=…`), read
 * from that file so the benches (and `npm run demo`) spawn
 * `node <options> dist/src/cli/main.js …` exactly as a user's `median-dev …`
 * does, and the options live in one place: the shebang of src/cli/main.ts.
 * (The CLI sets no V8 option at run time: src/cli/main.ts says why.)
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** The node options of a `#!/usr/bin/env node …` or `#!/usr/bin/env -S node …` first line; [] for any other first line. */
export function nodeArgsOfShebang(firstLine: string): string[] {
  const words = firstLine.replace(/^#!\s*/, '').trim().split(/\s+/);
  if (!firstLine.startsWith('#!') || !/(^|\/)env$/.test(words[0] ?? '')) return [];
  const rest = words[1] === '-S' ? words.slice(2) : words.slice(1);
  return rest[0] === 'node' ? rest.slice(1) : [];
}

/** The node options in `entry`'s shebang line (the first 4 KiB are read, not the whole file). */
export function binNodeArgs(entry: string): string[] {
  const fd = openSync(entry, 'r');
  try {
    const head = Buffer.alloc(4096);
    const length = readSync(fd, head, 0, head.length, 0);
    return nodeArgsOfShebang(head.subarray(0, length).toString('utf8').split('\n', 1)[0]!);
  } finally {
    closeSync(fd);
  }
}

/** The arguments after `node` that run `entry` as its bin line would, then `args`. */
export function binArgv(entry: string, args: readonly string[]): string[] {
  return [...binNodeArgs(entry), entry, ...args];
}
