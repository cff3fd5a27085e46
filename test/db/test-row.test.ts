// The one writer of a test's row (db/tests.ts writeTestRow): the sync's ingest and the local copy's
// rewrite leave identical rows, raw JSON, tags and audiences for the same record (issue 19, item 3).
import { describe, expect, it } from 'vitest';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import { writeLocalTest } from '#core/db/cache/local-copies';
import type { Test } from '#shared/api/index';
import { addStore, customAudience, makeTest, openTempDb, tag } from './fixtures';

const STORE = 's1';
const NOW = '2026-03-01T10:00:00Z';

const cachedBefore = makeTest({
  n: 1,
  tags: [tag(1, 'Checkout'), tag(2, 'Mobile')],
  customAudiences: [customAudience(1, 'Danes')],
});

/** The same test with every typed column different, and other tags and audiences. */
const changed: Test = makeTest({
  n: 1,
  title: 'Another title',
  status: 'completed',
  stage: 'built',
  goal: 'revenue',
  device: 'mobile',
  visitorOption: 'new',
  hypothesisDescription: 'Because',
  handle: 'another-handle',
  campaign: { id: 'c2', name: 'Summer' },
  startAt: '2026-02-02T00:00:00Z',
  endAt: '2026-02-20T00:00:00Z',
  createdAt: '2026-01-02T00:00:00Z',
  updatedAt: '2026-02-21T00:00:00Z',
  priority: 'high',
  surfaceArea: 'cart',
  impact: 4,
  effort: 2,
  implemented: true,
  tags: [tag(2, 'Mobile renamed'), tag(3, 'Pricing')],
  customAudiences: [customAudience(2, 'Swedes')],
});

/** A cache with the store and the test as a first sync wrote it. */
function synced(): Db {
  const db = openTempDb();
  addStore(db, STORE);
  upsertTests(db, { storeId: STORE, tests: [cachedBefore], runId: 'run-1', syncedAt: NOW });
  return db;
}

function contents(db: Db) {
  const all = (sql: string) => db.prepare(sql).all();
  return {
    tests: all(`SELECT * FROM tests ORDER BY seq`),
    raw: all(`SELECT * FROM tests_raw ORDER BY seq`),
    tags: all(`SELECT * FROM tags ORDER BY store_id, id`),
    testTags: all(`SELECT * FROM test_tags ORDER BY store_id, test_id, tag_id`),
    audiences: all(`SELECT * FROM test_custom_audiences ORDER BY store_id, test_id, audience_id`),
  };
}

describe('a test row', () => {
  it('is the same whether a sync or the local copy writes the record', () => {
    const bySync = synced();
    upsertTests(bySync, { storeId: STORE, tests: [changed], runId: 'run-1', syncedAt: NOW });
    const byLocalCopy = synced();
    writeLocalTest(byLocalCopy, STORE, changed);

    const sync = contents(bySync);
    expect(contents(byLocalCopy)).toEqual(sync);
    // Every typed column took the new record (not only the fields an edit changes).
    expect(sync.tests[0]).toMatchObject({
      title: 'Another title',
      status: 'completed',
      stage: 'built',
      handle: 'another-handle',
      campaign_id: 'c2',
      campaign_name: 'Summer',
      start_at: '2026-02-02T00:00:00Z',
      end_at: '2026-02-20T00:00:00Z',
      created_at: '2026-01-02T00:00:00Z',
      implemented: 1,
      tag_names: '["Mobile renamed","Pricing"]',
      synced_at: NOW,
      last_seen_run: 'run-1',
    });
  });

  it('written by the local copy leaves what the sync bookkeeps, and a test not cached alone', () => {
    const db = synced();
    db.prepare(`UPDATE tests SET removed = 1`).run();
    writeLocalTest(db, STORE, changed);
    writeLocalTest(db, STORE, makeTest({ n: 2 }));
    expect(contents(db).tests).toEqual([
      expect.objectContaining({ synced_at: NOW, last_seen_run: 'run-1', removed: 1 }),
    ]);
  });
});
