// The Changes view's page (review.changes with a limit): each store's newest lines up to the limit, in
// the order the whole report lists them, a store asked for whole listed whole, and every count the
// whole report's. Real SQLite files, written as a sync writes the review memory.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeLine, ChangesReport } from '#shared/contract/index';
import { markReviewed, writeSnapshot } from '#core/db/history/review';
import { openDatabase } from '#core/db/open';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import { listChanges } from '#core/review/changes';
import { addStore, makeTest, tempDir } from '../db/fixtures';

const DAY = 86_400_000;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const iso = (day: number) => new Date(T0 + day * DAY).toISOString();

/**
 * Three stores (two of them with the same name, so the store name ties) of 14 tests each; over ten
 * daily syncs each test changes status, title or tier on some days, several tests on the same sync
 * (ties on the time), some with the same title (ties on the title), and the probability drifts.
 */
function seed(db: Db): string[] {
  const storeIds = ['a', 'b', 'c'];
  const names = ['North', 'South', 'North'];
  storeIds.forEach((storeId, s) => {
    addStore(db, storeId, names[s]);
    const tests = Array.from({ length: 14 }, (_, i) =>
      makeTest({ n: s * 100 + i, title: i % 5 === 0 ? 'Same title' : `Test ${(i * 7) % 13}` }),
    );
    upsertTests(db, { storeId, tests, runId: 'r', syncedAt: iso(10) });
    for (const [i, test] of tests.entries()) {
      let p = 0.5;
      let status = 'draft';
      for (let day = 0; day < 10; day++) {
        const before = p;
        p = Math.min(0.99, Math.max(0.01, p + (((i * 5 + day * 3) % 9) - 4) / 40));
        const changes: Record<string, [unknown, unknown]> = {};
        if (day > 0) changes.probabilityToWin = [before, p];
        if (day > 0 && (day + i) % 3 === 0) {
          const next = status === 'active' ? 'paused' : 'active';
          changes.status = [status, next];
          status = next;
        }
        if (day > 0 && (day * i) % 7 === 1) changes.tier = ['learning', `tier ${day}`];
        if (day > 0 && (i + s) % 4 === 0 && day % 4 === 2)
          changes.title = [`t${day}`, `t${day + 1}`];
        const keys = Object.keys(changes);
        writeSnapshot(db, {
          storeId,
          testId: test.id,
          at: iso(day),
          baseline: day === 0,
          drift: day > 0 && keys.every((k) => k === 'probabilityToWin'),
          probabilityToWin: p,
          state: JSON.stringify({ status, probabilityToWin: p }),
          changes: JSON.stringify(day === 0 ? {} : changes),
          resultsFetchedAt: null,
          tracked: '{}',
        });
      }
    }
  });
  return storeIds;
}

const kept = (report: ChangesReport, storeId: string, own: boolean): ChangeLine[] =>
  report.lines.filter((l) => l.storeId === storeId && (l.own !== null) === own);

describe("the Changes view's page", () => {
  it("keeps each store's newest lines up to the limit, in the whole report's order, with every count", () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'cache.db'), { userDataFile: join(dir, 'user.db') });
    try {
      const storeIds = seed(db);
      markReviewed(db, 'b', iso(4));
      for (const since of [null, iso(2), '2000-01-01T00:00:00.000Z']) {
        const input = { storeId: null, since, probabilityThreshold: 0.1 };
        const whole = listChanges(db, input);
        for (const storeId of storeIds)
          expect(kept(whole, storeId, false).length).toBeGreaterThan(3);
        expect(listChanges(db, { ...input, limit: null })).toEqual(whole);
        for (const limit of [1, 3, 10, 1000]) {
          const page = listChanges(db, { ...input, limit });
          expect(page.stores).toEqual(whole.stores);
          for (const storeId of storeIds)
            for (const own of [false, true])
              expect(kept(page, storeId, own)).toEqual(kept(whole, storeId, own).slice(0, limit));
          // A store asked for whole comes whole, the others still a page.
          const some = listChanges(db, { ...input, limit, allLinesOf: ['c'] });
          expect(kept(some, 'c', false)).toEqual(kept(whole, 'c', false));
          expect(kept(some, 'a', false)).toEqual(kept(whole, 'a', false).slice(0, limit));
        }
        // One store's scope pages the same way.
        const one = listChanges(db, { ...input, storeId: 'b', limit: 2 });
        expect(one.lines).toEqual(kept(whole, 'b', false).slice(0, 2));
        expect(one.stores).toEqual(whole.stores.filter((s) => s.storeId === 'b'));
      }
    } finally {
      db.close();
    }
  });
});
