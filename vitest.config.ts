// Test run: unit and integration tests under Node, end-to-end tests drive Chromium through the browser host.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Native modules (better-sqlite3, keytar) and child processes: forks are the safe pool.
    pool: 'forks',
  },
});
