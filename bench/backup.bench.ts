// Backup and restore benchmark: a user file of 20 stores × 500 tests × 50 snapshots (the review bench's
// scale, about 500,000 rows) with a note per test, backed up (online copy, checks, digest), inspected (every
// check a restore makes before it changes anything) and restored (the user file built row by row, the
// digest checked again, the swap), each timed once, and the process's peak memory.
import { join } from 'node:path';
import { createCore } from '#core/create-core';
import { createMemorySecretStore } from '#core/secrets/index';
import { insertStore } from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import { fmt, printFigures, withTempDir } from './support';

const STORES = 20;
const TESTS = 500;
const SNAPSHOTS = 50;

/** The user's own data at scale, written straight into the user file. */
function seed(dataDir: string): void {
  const db = openDatabase(join(dataDir, 'splitbook.db'), {
    userDataFile: join(dataDir, 'splitbook-user.db'),
  });
  try {
    db.transaction(() => {
      for (let s = 0; s < STORES; s++)
        insertStore(db, {
          id: `store-${s}`,
          name: `Store ${s}`,
          baseUrl: 'https://example.com/api/public/v1',
          kind: 'api',
          keyStorage: 'keychain',
          createdAt: new Date().toISOString(),
        });
      const snapshot = db.prepare(
        `INSERT INTO user.test_snapshots (store_id, test_id, at, baseline, drift, probability_to_win, state, changes)
         VALUES (?, ?, ?, ?, 1, ?, ?, ?)`,
      );
      const note = db.prepare(`INSERT INTO user.notes VALUES (?, ?, ?, ?)`);
      const state = JSON.stringify({
        status: 'active',
        stage: 'idea',
        tier: 'emerging',
        lift: 1.2,
      });
      for (let s = 0; s < STORES; s++)
        for (let t = 0; t < TESTS; t++) {
          const test = `test-${t}`;
          note.run(
            `store-${s}`,
            test,
            `Note on ${test}: ${'a'.repeat(200)}`,
            new Date().toISOString(),
          );
          for (let k = 0; k < SNAPSHOTS; k++)
            snapshot.run(
              `store-${s}`,
              test,
              new Date(Date.UTC(2026, 0, 1 + k)).toISOString(),
              k === 0 ? 1 : 0,
              0.5 + k / 200,
              state,
              JSON.stringify({
                probabilityToWin: [0.5, 0.5 + k / 200],
                visitorsControl: [k, k + 1],
              }),
            );
        }
    })();
  } finally {
    db.close();
  }
}

const peakMiB = () => process.resourceUsage().maxRSS / 1024;

export async function benchBackup(): Promise<void> {
  await withTempDir(async (dir) => {
    const source = join(dir, 'source');
    const target = join(dir, 'target');
    const file = join(dir, 'data.backup');
    seed(source);
    const before = peakMiB();
    const core = await createCore({
      dataDir: source,
      secrets: createMemorySecretStore(),
      host: 'cli',
      version: 'bench',
    });
    let t = performance.now();
    const info = await core.data.backup(file);
    const backupMs = performance.now() - t;
    t = performance.now();
    await core.data.inspect(file);
    const inspectMs = performance.now() - t;
    await core.close();
    const restoring = await createCore({
      dataDir: target,
      secrets: createMemorySecretStore(),
      host: 'cli',
      version: 'bench',
    });
    t = performance.now();
    await restoring.data.restore(file);
    const restoreMs = performance.now() - t;
    await restoring.close();
    printFigures('Backup and restore', [
      {
        name: `user file of ${STORES}×${TESTS}×${SNAPSHOTS} snapshots and ${STORES * TESTS} notes`,
        value: `${fmt(info.bytes / 1024 / 1024, 1)} MiB backup`,
      },
      { name: 'backup (online copy, checks, digest)', value: `${fmt(backupMs, 0)} ms` },
      { name: 'inspect (every check before a restore)', value: `${fmt(inspectMs, 0)} ms` },
      {
        name: 'restore (checks, rows copied, digest again, swap)',
        value: `${fmt(restoreMs, 0)} ms`,
      },
      { name: 'peak RSS (before / after)', value: `${fmt(before, 0)} / ${fmt(peakMiB(), 0)} MiB` },
    ]);
  });
}
