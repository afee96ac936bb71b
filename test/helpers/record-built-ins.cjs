// Loaded with `node --require <this file>` by test/e2e/cli/show-built-ins.test.ts: at exit, writes
// process.moduleLoadList (every Node built-in module and binding the process loaded, Node's own list)
// one per line to the file named by MEDIAN_DEV_TEST_BUILT_INS_FILE, so a test can tell which
// built-ins a command compiled.
'use strict';
const { writeFileSync } = require('node:fs');

const file = process.env.MEDIAN_DEV_TEST_BUILT_INS_FILE;
if (file) process.on('exit', () => writeFileSync(file, `${process.moduleLoadList.join('\n')}\n`));
