// Test run: unit and integration tests under Node, end-to-end tests drive Chromium through the browser host.
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Native modules (better-sqlite3, keytar) and child processes: forks are the safe pool.
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'all', include: ['test/**/*.test.ts'], exclude: ['test/renderer/**'] },
      },
      {
        // The renderer's own modules (runes compiled by Svelte, its client runtime): test/renderer.
        extends: true,
        plugins: [svelte({ dynamicCompileOptions: () => ({ generate: 'client' }) })],
        resolve: { conditions: ['browser'] },
        ssr: { resolve: { conditions: ['browser'] } },
        test: { name: 'renderer', include: ['test/renderer/**/*.test.ts'] },
      },
      {
        // The core's sync and decisions tests again with syncs on their own thread, as every host runs
        // them (test/support/core.ts). Left out: files that start no core, sync-thread.test.ts (on the
        // thread already) and background.test.ts (hand-moved timers race a run no event announces).
        extends: true,
        test: {
          name: 'sync-thread',
          include: [
            'test/decisions/*.test.ts',
            'test/sync/{add-store-keys,background-processes,issues-paging,kill,no-key-leak,sync-faults,sync}.test.ts',
          ],
          env: { SPLITBOOK_TEST_SYNC_THREAD: '1' },
        },
      },
    ],
  },
});
