// The review window's ends kept on each test's state row (user-data migration 8): after any mix of
// snapshots (the clock set back too), review marks (past and future) and thinning, they equal what the
// snapshots themselves say, and a file of the previous layout is brought up with them filled in.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  markReviewed,
  probabilityEnds,
  refreshReviewEnds,
  storeMark,
  thinDriftSnapshots,
  writeSnapshot,
} from '#core/db/history/review';
import { probabilityEndsAt } from './reference-ends';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import { migrate } from '#core/db/cache/migrations/index';
import { USER_DATA_MIGRATIONS } from '#core/db/user/migrations/migrations';
import { addStore, tempDir } from '../db/fixtures';

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (day: number) => new Date(T0 + day * DAY).toISOString();

/** A small deterministic generator (mulberry32), so a failure replays. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function snapshot(
  db: Db,
  storeId: string,
  testId: string,
  day: number,
  p: number | null,
  drift: boolean,
) {
  writeSnapshot(db, {
    storeId,
    testId,
    at: iso(day),
    baseline: false,
    drift,
    probabilityToWin: p,
    state: '{}',
    changes: '{}',
    resultsFetchedAt: null,
    tracked: '{}',
  });
}

const byTest = <T extends { testId: string }>(rows: T[]) =>
  [...rows].sort((a, b) => (a.testId < b.testId ? -1 : 1));

describe("the review window's ends kept per test", () => {
  it('equal the snapshots walked, through 600 random snapshots, marks and thinnings on 4 seeds', () => {
    for (const seed of [1, 2, 3, 4]) {
      const random = seeded(seed);
      const db = openDatabase(join(tempDir(), 'cache.db'), {
        userDataFile: join(tempDir(), 'user.db'),
      });
      addStore(db, 's');
      let day = 0;
      for (let step = 0; step < 600; step++) {
        const roll = random();
        if (roll < 0.8) {
          // Mostly forward in time, sometimes the same moment, now and then the clock set back.
          day += random() < 0.1 ? -Math.floor(random() * 5) : Math.floor(random() * 2);
          const p = random() < 0.1 ? null : Math.round(random() * 100) / 100;
          snapshot(db, 's', `t${Math.floor(random() * 8)}`, day, p, random() < 0.7);
        } else if (roll < 0.93) {
          markReviewed(db, 's', iso(day + Math.floor(random() * 10) - 7));
        } else {
          // As the sync's compaction does: thin, then work the ends out again.
          if (thinDriftSnapshots(db, 's', '', iso(day - Math.floor(random() * 20))) > 0)
            refreshReviewEnds(db, 's');
        }
        const since = storeMark(db, 's').reviewedAt;
        if (since === null) continue;
        expect(byTest(probabilityEnds(db, 's', since)), `seed ${seed}, step ${step}`).toEqual(
          byTest(probabilityEndsAt(db, 's', since)),
        );
      }
      db.close();
    }
  });

  it('are filled in when a user file of the previous layout is opened', () => {
    const cacheFile = join(tempDir(), 'cache.db');
    const userFile = join(tempDir(), 'user.db');
    const old = new Database(cacheFile);
    old.prepare('ATTACH DATABASE ? AS user').run(userFile);
    migrate(
      old,
      USER_DATA_MIGRATIONS.filter((m) => m.version <= 7),
      'user',
    );
    const insert = old.prepare(
      `INSERT INTO user.test_snapshots (store_id, test_id, at, baseline, drift, probability_to_win, state, changes)
       VALUES ('s', ?, ?, 0, 1, ?, '{}', '{}')`,
    );
    for (const [test, day, p] of [
      ['a', 1, 0.4],
      ['a', 5, 0.6],
      ['a', 9, 0.9],
      ['b', 8, 0.2],
      ['b', 12, 0.3],
    ] as const)
      insert.run(test, iso(day), p);
    for (const test of ['a', 'b'])
      old
        .prepare(`INSERT INTO user.test_state (store_id, test_id, state) VALUES ('s', ?, '{}')`)
        .run(test);
    old.prepare(`INSERT INTO user.store_marks (store_id, reviewed_at) VALUES ('s', ?)`).run(iso(6));
    old.close();

    const db = openDatabase(cacheFile, { userDataFile: userFile });
    addStore(db, 's');
    const since = iso(6);
    const ends = byTest(probabilityEnds(db, 's', since));
    expect(ends).toEqual([
      { testId: 'a', before: 0.6, beforeKnown: 1, now: 0.9, nowAt: iso(9) },
      // First seen after the mark: its first known probability is where it started.
      { testId: 'b', before: 0.2, beforeKnown: 1, now: 0.3, nowAt: iso(12) },
    ]);
    expect(ends).toEqual(byTest(probabilityEndsAt(db, 's', since)));
    db.close();
  });
});
