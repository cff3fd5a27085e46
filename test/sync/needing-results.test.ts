// Which tests a sync asks results for: only launched tests whose results can have changed since they were cached.
import { describe, expect, it } from 'vitest';
import { markMissingRemoved, upsertTests } from '#core/db/cache/tests';
import { upsertResults } from '#core/decisions/results';
import { testsNeedingResults } from '#core/sync/pull/results';
import type { Test } from '#shared/api/index';
import type { Db } from '#core/db/types';
import { addStore, makeResults, makeTest, openTempDb } from '../db/fixtures';

const NOW = '2026-03-01T10:00:00Z';

function cacheTest(db: Db, n: number, status: string, updatedAt = '2026-02-01T00:00:00Z'): Test {
  const test = makeTest({ n, status, updatedAt });
  upsertTests(db, { storeId: 's1', tests: [test], runId: 'run-1', syncedAt: NOW });
  return test;
}

/** Results fetched while the test had this status and updatedAt. */
function cacheResults(
  db: Db,
  test: Test,
  fetchedFor: { status: string; updatedAt: string } = test,
): void {
  const results = makeResults(test.id);
  upsertResults(db, {
    storeId: 's1',
    testId: test.id,
    results: results,
    fetchedAt: NOW,
    testUpdatedAt: fetchedFor.updatedAt,
    testStatus: fetchedFor.status,
  });
}

function needing(db: Db): string[] {
  return testsNeedingResults(db, 's1').map((test) => test.id);
}

describe('testsNeedingResults', () => {
  it('skips tests that were never launched', () => {
    const db = openTempDb();
    addStore(db, 's1');
    cacheTest(db, 1, 'draft');
    cacheTest(db, 2, 'scheduled');
    cacheTest(db, 3, 'incompatible');
    expect(needing(db)).toEqual([]);
  });

  it('asks for launched tests without cached results, with the test as it is now', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const completed = cacheTest(db, 1, 'completed');
    const archived = cacheTest(db, 2, 'archived'); // an unknown status counts as launched
    expect(testsNeedingResults(db, 's1')).toEqual(
      expect.arrayContaining([
        { id: completed.id, updatedAt: completed.updatedAt, status: 'completed' },
        { id: archived.id, updatedAt: archived.updatedAt, status: 'archived' },
      ]),
    );
  });

  it('asks again for active tests, whose figures move between syncs, but not for paused or suspended ones', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const [active, paused, suspended] = ['active', 'paused', 'suspended'].map((status, i) =>
      cacheTest(db, i + 1, status),
    );
    for (const test of [active, paused, suspended]) if (test) cacheResults(db, test);
    expect(needing(db)).toEqual([active?.id]);
  });

  it('asks again for a paused test once its status changes (resumed, ended)', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const paused = cacheTest(db, 1, 'paused');
    cacheResults(db, paused);
    expect(needing(db)).toEqual([]);
    const resumed = { ...paused, status: 'suspended' };
    upsertTests(db, { storeId: 's1', tests: [resumed], runId: 'run-2', syncedAt: NOW });
    expect(needing(db)).toEqual([paused.id]);
  });

  it('with a freshness window, keeps live results fetched within it, and only those', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const test = cacheTest(db, 1, 'active');
    cacheResults(db, test); // fetched at NOW
    const at = (minutes: number) => new Date(Date.parse(NOW) + minutes * 60_000).toISOString();
    const window = 5 * 60_000;
    expect(testsNeedingResults(db, 's1', { now: at(4), liveMaxAgeMs: window })).toEqual([]);
    expect(
      testsNeedingResults(db, 's1', { now: at(6), liveMaxAgeMs: window }).map((t) => t.id),
    ).toEqual([test.id]);
    expect(
      testsNeedingResults(db, 's1', { now: at(-1), liveMaxAgeMs: window }).map((t) => t.id),
    ).toEqual([test.id]); // clock went back
    // An edit still counts inside the window.
    cacheTest(db, 1, 'active', '2026-02-09T00:00:00Z');
    expect(
      testsNeedingResults(db, 's1', { now: at(1), liveMaxAgeMs: window }).map((t) => t.id),
    ).toEqual([test.id]);
  });

  it('skips an ended test whose results were fetched after it ended and which has not changed since', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const test = cacheTest(db, 1, 'completed');
    cacheResults(db, test);
    expect(needing(db)).toEqual([]);
  });

  it('asks again for a test edited since its results were fetched', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const test = cacheTest(db, 1, 'completed', '2026-02-01T00:00:00Z');
    cacheResults(db, test);
    cacheTest(db, 1, 'completed', '2026-02-05T00:00:00Z');
    expect(needing(db)).toEqual([test.id]);
  });

  it('asks again for a test that ended after its results were fetched', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const test = cacheTest(db, 1, 'cancelled');
    cacheResults(db, test, { status: 'active', updatedAt: test.updatedAt });
    expect(needing(db)).toEqual([test.id]);
  });

  it('skips removed tests', () => {
    const db = openTempDb();
    addStore(db, 's1');
    cacheTest(db, 1, 'completed');
    upsertTests(db, { storeId: 's1', tests: [], runId: 'run-2', syncedAt: NOW });
    markMissingRemoved(db, 's1', 'run-2');
    expect(needing(db)).toEqual([]);
  });

  it('on a re-sync where nothing changed, asks only for the active tests', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const statuses = [
      'draft',
      'active',
      'completed',
      'cancelled',
      'paused',
      'scheduled',
      'completed',
    ];
    const tests = statuses.map((status, i) => cacheTest(db, i + 1, status));
    for (const test of tests)
      if (test.status !== 'draft' && test.status !== 'scheduled') cacheResults(db, test);
    upsertTests(db, { storeId: 's1', tests: tests, runId: 'run-2', syncedAt: NOW });
    expect(needing(db).sort()).toEqual(
      tests
        .filter((t) => t.status === 'active')
        .map((t) => t.id)
        .sort(),
    );
  });
});
