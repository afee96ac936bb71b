// Loaded with `node --import <this file>` by test/e2e/cli/lazy-imports.test.ts: registers a module
// resolve hook (Node's module.register, the real loader API) that appends every resolved URL to the
// file named by MEDIAN_DEV_TEST_IMPORTS_FILE, so a test can tell which packages a command loaded.
import { register } from 'node:module';

register(new URL('./record-imports-hooks.mjs', import.meta.url), { data: { file: process.env.MEDIAN_DEV_TEST_IMPORTS_FILE } });
