// Loaded with `node --require <this file>` by test/e2e/cli/bundled-cli.test.ts: as the bundle's
// daemon chunk (dist/bin/chunks/daemon-*.js) is about to be compiled, writes a JSON line
// {"event":"test-chunk-loading","chunk":"daemon"} straight to fd 1, so the test reads from stdout's
// own order whether a line the CLI printed went out before the chunk's load or after it.
'use strict';
const Module = require('node:module');
const { writeSync } = require('node:fs');

const compileJs = Module._extensions['.js'];
Module._extensions['.js'] = function markDaemonChunk(module, filename) {
  if (/[\\/]chunks[\\/]daemon-[^\\/]+\.js$/.test(filename)) writeSync(1, `${JSON.stringify({ event: 'test-chunk-loading', chunk: 'daemon' })}\n`);
  return compileJs.call(this, module, filename);
};
