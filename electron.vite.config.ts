// Build of the three Electron targets: main (Node), preload (sandboxed bridge) and renderer (Svelte).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

/** The statistics' numerics (src/shared/domain/statistics), from package.json's dependencies. */
const STDLIB = Object.keys(
  (
    JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    }
  ).dependencies,
).filter((name) => name.startsWith('@stdlib/'));

export default defineConfig({
  main: {
    build: {
      // Bundled, not loaded from node_modules: the six numerics packages are 575 small CommonJS files
      // and zod some dozens, about 0.3 s to resolve and load at each start of the main process and of
      // each worker (the sync thread, its decoder). Native modules (better-sqlite3, keytar)
      // stay external.
      externalizeDeps: { exclude: [...STDLIB, 'zod'] },
      // Read from the disk at start, not downloaded: a chunk of about 1 MB is no concern here.
      chunkSizeWarningLimit: 2048,
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          // The sync thread (src/main/core/sync/thread/): out/main/sync-worker.js beside index.js.
          'sync-worker': resolve('src/main/core/sync/thread/worker.ts'),
          // The sync thread's results decoder (src/main/core/sync/decode/): out/main/results-decoder.js.
          'results-decoder': resolve('src/main/core/sync/decode/worker.ts'),
          // The threads that make a refresh's calls (src/main/core/decisions/): out/main/call-worker.js.
          'call-worker': resolve('src/main/core/decisions/call-worker.ts'),
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
