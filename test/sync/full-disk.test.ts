// A full disk during a sync: the run ends with a clear problem and the cache keeps what it had.
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createApiClient } from '#core/api/index';
import { insertStore } from '#core/db/cache/stores';
import { listTests } from '#core/db/cache/test-list';
import { openDatabase } from '#core/db/open';
import { createSyncEngine } from '#core/sync/run';
import { TestListInput } from '#shared/contract/index';
import { createSimulator } from '#simulator/index';
import { tempDir } from '../support/core';

const dir = tempDir();
afterEach(() => dir.remove());

const sim = createSimulator({ seed: 2, stores: [{ name: 'Acme', tests: 400 }] });
const apiKey = sim.stores[0]?.apiKey ?? '';

function cacheWithEngine(file: string) {
  const db = openDatabase(file);
  insertStore(db, {
    id: 's',
    name: 'Acme',
    baseUrl: sim.baseUrl,
    kind: 'api',
    keyStorage: 'none',
    createdAt: '2026-11-01T00:00:00Z',
  });
  const engine = createSyncEngine({
    db,
    clientFor: async () => createApiClient({ baseUrl: sim.baseUrl, apiKey, fetch: sim.fetch }),
    clock: Date.now,
    onProgress: () => {},
    onFinished: () => {},
  });
  return { db, engine };
}

it('ends with "The disk is full" when SQLite cannot grow the file, and keeps the cache sound', async () => {
  // How many pages a full sync needs, learnt on a scratch cache.
  const scratch = cacheWithEngine(join(dir.path, 'scratch.db'));
  await scratch.engine.run('s');
  const fullPages = Number(scratch.db.pragma('page_count', { simple: true }));
  scratch.db.close();

  const { db, engine } = cacheWithEngine(join(dir.path, 'cache.db'));
  const emptyPages = Number(db.pragma('page_count', { simple: true }));
  // SQLite's own cap on the file's size: past it, writes fail with SQLITE_FULL, as on a full disk.
  db.pragma(`max_page_count = ${Math.round((emptyPages + fullPages) / 2)}`);
  const report = await engine.run('s');

  expect(report.outcome).toBe('error');
  expect(report.problem).toMatchObject({ status: 507, title: 'The disk is full' });
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  const cached = listTests(db, TestListInput.parse({ storeId: 's', limit: 2000 })).total;
  expect(cached).toBeGreaterThan(0); // what was written before the disk filled is kept

  // Space again: the next run completes the cache.
  db.pragma('max_page_count = 1073741823');
  expect((await engine.run('s')).outcome).toBe('ok');
  expect(listTests(db, TestListInput.parse({ storeId: 's' })).total).toBe(400);
  db.close();
});
