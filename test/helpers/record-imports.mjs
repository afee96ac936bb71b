// Loaded with `node --import <this file>` by test/e2e/cli/lazy-imports.test.ts: registers a module
// resolve hook (Node's module.register, the real loader API) that appends every resolved URL to the
// file named by MEDIAN_DEV_TEST_IMPORTS_FILE (and at exit, the lazily loaded parts of Node itself), and wraps CommonJS loading (what `require` and
// createRequire load, which no ESM hook sees) to append those files too, so a test can tell which
// packages a command loaded. Only in median-dev's own process: a dev server it starts inherits
// NODE_OPTIONS and is left alone.
import Module, { register } from 'node:module';
import { appendFileSync } from 'node:fs';

const file = process.env.MEDIAN_DEV_TEST_IMPORTS_FILE;
if (file && /[/\\](cli[/\\]main|bin[/\\]median-dev)\.js$/.test(process.argv[1] ?? '')) {
  register(new URL('./record-imports-hooks.mjs', import.meta.url), { data: { file } });
  // Module.prototype.load, not _compile: the bundled bin compiles its chunks itself (src/cli/code-cache.ts).
  const load = Module.prototype.load;
  Module.prototype.load = function (filename) {
    appendFileSync(file, `file://${filename} (required)\n`);
    return load.call(this, filename);
  };
  // Node's own modules that load lazily, heavy ones among them (undici, behind the first fetch), seen by no hook:
  // named at exit from process.moduleLoadList.
  process.on('exit', () => {
    const lazy = process.moduleLoadList.filter((name) => name.startsWith('NativeModule internal/deps/'));
    appendFileSync(file, lazy.map((name) => `node:${name.slice('NativeModule '.length)} (built-in)\n`).join(''));
  });
}
