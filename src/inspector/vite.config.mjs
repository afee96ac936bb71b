import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The browser inspector, bundled at build time into dist/inspector, which the
// daemon serves from memory. No inline script (the page's CSP forbids it), no
// remote URL, no runtime download.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('../../dist/inspector', import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
  },
});
