// Loaded with `node --require <this file>` by test/e2e/cli/code-cache.test.ts: wraps node:vm's Script
// (what src/cli/code-cache.ts compiles the bundle's chunks with) so that at exit, one line per script
// compiled, `<file name> <used|rejected|compiled>` goes to the file named by
// MEDIAN_DEV_TEST_CODE_CACHE_FILE: whether V8 took the cache the bin read for it, or there was none.
'use strict';
const vm = require('node:vm');
const { appendFileSync } = require('node:fs');

const file = process.env.MEDIAN_DEV_TEST_CODE_CACHE_FILE;
if (file) {
  const Script = vm.Script;
  const lines = [];
  vm.Script = function RecordedScript(code, options) {
    const script = new Script(code, options);
    const name = String(options?.filename ?? '').split(/[\\/]/).pop();
    lines.push(`${name} ${options?.cachedData ? (script.cachedDataRejected ? 'rejected' : 'used') : 'compiled'}`);
    return script;
  };
  process.on('exit', () => appendFileSync(file, lines.map((line) => `${line}\n`).join('')));
}
