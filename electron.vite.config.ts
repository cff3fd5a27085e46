// Build of the three Electron targets: main (Node), preload (sandboxed bridge) and renderer (Svelte).
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          // The sync thread (src/main/core/sync/thread/): out/main/sync-worker.js beside index.js.
          'sync-worker': resolve('src/main/core/sync/thread/worker.ts'),
          // The sync thread's results decoder (src/main/core/sync/decode/): out/main/results-decoder.js.
          'results-decoder': resolve('src/main/core/sync/decode/worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        // A sandboxed preload cannot `require` ESM chunks: emit one CommonJS file.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    build: {
      // The renderer ships to the window as one bundle: minified, it loads and parses faster.
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
    plugins: [svelte()],
  },
});
