// The Changes view's net changes kept per test and field (user-data migration 9): after any random mix
// of snapshots (the clock set back too), review marks, thinning and forgotten stores, the rows equal
// what the snapshots say worked out from scratch, and the view's nets over any window equal the walk
// over every snapshot it replaced (the implementation before migration 9, kept here as the reference).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  firstSnapshotAt,
  forgetStoreReview,
  markReviewed,
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
import { netChanges, type Net, type NetChanges } from '#core/review/changes';
import { DRIFT_FIELDS, type ChangeValue, type Changes } from '#core/review/state';
import { addStore, tempDir } from '../db/fixtures';

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (day: number) => new Date(T0 + day * DAY).toISOString();
const THRESHOLD = 0.1;

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

const IGNORED: ReadonlySet<string> = new Set(DRIFT_FIELDS);
const VALUES: ChangeValue[] = [
  null,
  'active',
  'paused',
  'completed',
  true,
  false,
  3,
  0.30000000000000004,
  '',
  'Héllo “quoted” \u2028 \\ "x"',
];
const REAL_FIELDS = ['status', 'stage', 'removed', 'tier', 'leader', 'title', 'tags', 'tier:2'];

type Snap = { testId: string; at: string; changes: string };

/** The view's nets before migration 9: every snapshot after `since` walked, oldest first. */
function reference(db: Db, storeId: string, since: string): NetChanges {
  const byTest: NetChanges = new Map();
  const rows = db
    .prepare(
      `SELECT test_id AS testId, at, changes FROM user.test_snapshots
       WHERE store_id = ? AND drift = 0 AND at > ? AND baseline = 0 ORDER BY at, id`,
    )
    .all(storeId, since) as Snap[];
  for (const snapshot of rows) {
    let fields = byTest.get(snapshot.testId);
    if (!fields) byTest.set(snapshot.testId, (fields = new Map()));
    const changes = JSON.parse(snapshot.changes) as Changes;
    for (const [field, [from, to]] of Object.entries(changes)) {
      if (IGNORED.has(field) || field.startsWith('tier:')) continue;
      const net = fields.get(field);
      if (net) Object.assign(net, { to, at: snapshot.at });
      else fields.set(field, { from, to, at: snapshot.at });
    }
  }
  for (const ends of probabilityEndsAt(db, storeId, since)) {
    if (!ends.beforeKnown || ends.before === null || ends.now === null || ends.nowAt === null)
      continue;
    if (Math.abs(ends.now - ends.before) <= THRESHOLD) continue;
    let fields = byTest.get(ends.testId);
    if (!fields) byTest.set(ends.testId, (fields = new Map()));
    fields.set('probabilityToWin', { from: ends.before, to: ends.now, at: ends.nowAt });
  }
  return byTest;
}

/** Both maps as arrays, the tests' order kept (it orders lines alike in every sort key). */
const flat = (nets: NetChanges) =>
  [...nets]
    .map(([testId, fields]) => [testId, [...fields].sort(([a], [b]) => (a < b ? -1 : 1))] as const)
    .filter(([, fields]) =>
      fields.some(([field, net]) => net.from !== net.to || field === 'added'),
    );

type NetsRow = {
  storeId: string;
  testId: string;
  field: string;
  firstAt: string;
  firstId: number;
  firstFrom: string;
  lastAt: string;
  lastId: number;
  lastTo: string;
  markAt: string | null;
  markId: number | null;
  markFrom: string | null;
};

function keptRows(db: Db): NetsRow[] {
  return db
    .prepare(
      `SELECT store_id AS storeId, test_id AS testId, field, first_at AS firstAt, first_id AS firstId,
              first_from AS firstFrom, last_at AS lastAt, last_id AS lastId, last_to AS lastTo,
              mark_at AS markAt, mark_id AS markId, mark_from AS markFrom
       FROM user.change_nets ORDER BY store_id, test_id, field`,
    )
    .all() as NetsRow[];
}

/** The rows worked out from scratch from every snapshot, in JavaScript. */
function scratchRows(db: Db): NetsRow[] {
  const rows = new Map<string, NetsRow>();
  const snapshots = db
    .prepare(
      `SELECT id, store_id AS storeId, test_id AS testId, at, changes FROM user.test_snapshots
       WHERE drift = 0 AND baseline = 0 ORDER BY at, id`,
    )
    .all() as (Snap & { id: number; storeId: string })[];
  const marks = new Map<string, string>();
  for (const s of snapshots) {
    const mark = marks.get(s.storeId) ?? storeMark(db, s.storeId).reviewedAt ?? '';
    marks.set(s.storeId, mark);
    const changes = JSON.parse(s.changes) as Changes;
    for (const [field, [from, to]] of Object.entries(changes)) {
      if (IGNORED.has(field)) continue;
      const key = JSON.stringify([s.storeId, s.testId, field]);
      const after = s.at > mark;
      const row = rows.get(key);
      if (!row) {
        rows.set(key, {
          storeId: s.storeId,
          testId: s.testId,
          field,
          firstAt: s.at,
          firstId: s.id,
          firstFrom: JSON.stringify(from),
          lastAt: s.at,
          lastId: s.id,
          lastTo: JSON.stringify(to),
          markAt: after ? s.at : null,
          markId: after ? s.id : null,
          markFrom: after ? JSON.stringify(from) : null,
        });
        continue;
      }
      Object.assign(row, { lastAt: s.at, lastId: s.id, lastTo: JSON.stringify(to) });
      if (after && row.markAt === null)
        Object.assign(row, { markAt: s.at, markId: s.id, markFrom: JSON.stringify(from) });
    }
  }
  const key = (r: NetsRow) => `${r.storeId}\u0000${r.testId}\u0000${r.field}`;
  return [...rows.values()].sort((a, b) => (key(a) < key(b) ? -1 : 1));
}

/** One random snapshot: real changes now and then, mostly drift. */
function write(db: Db, random: () => number, storeId: string, testId: string, day: number) {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const changes: Changes = {};
  const roll = random();
  if (roll < 0.05) changes.added = [null, pick(VALUES)];
  else if (roll < 0.45)
    for (let n = 1 + Math.floor(random() * 2); n > 0; n--)
      changes[pick(REAL_FIELDS)] = [pick(VALUES), pick(VALUES)];
  if (random() < 0.8) changes.probabilityToWin = [0.5, 0.6];
  if (random() < 0.5) changes.visitorsControl = [1, 2];
  const keys = Object.keys(changes);
  const baseline = keys.length === 0;
  const p = random() < 0.1 ? null : Math.round(random() * 100) / 100;
  writeSnapshot(db, {
    storeId,
    testId,
    at: iso(day),
    baseline,
    drift: !baseline && keys.every((k) => IGNORED.has(k)),
    probabilityToWin: p,
    state: '{}',
    changes: JSON.stringify(changes),
    resultsFetchedAt: null,
    tracked: '{}',
  });
}

describe("the Changes view's nets kept per test and field", () => {
  it('equal the snapshots worked out from scratch and walked, through random writes, marks, thinnings and forgets', () => {
    for (const seed of [1, 2, 3, 4]) {
      const random = seeded(seed);
      const db = openDatabase(join(tempDir(), 'cache.db'), {
        userDataFile: join(tempDir(), 'user.db'),
      });
      for (const store of ['a', 'b']) addStore(db, store);
      let day = 0;
      for (let step = 0; step < 250; step++) {
        const storeId = random() < 0.7 ? 'a' : 'b';
        const roll = random();
        if (roll < 0.8) {
          // Mostly forward in time, often the same moment, now and then the clock set back.
          day += random() < 0.08 ? -Math.floor(random() * 5) : Math.floor(random() * 2);
          write(db, random, storeId, `t${Math.floor(random() * 8)}`, day);
        } else if (roll < 0.9) {
          markReviewed(db, storeId, iso(day + Math.floor(random() * 10) - 7));
        } else if (roll < 0.99) {
          // As the sync's compaction does: thin, then work the ends out again.
          if (thinDriftSnapshots(db, storeId, '', iso(day - Math.floor(random() * 20))) > 0)
            refreshReviewEnds(db, storeId);
        } else {
          forgetStoreReview(db, storeId);
        }
        const context = `seed ${seed}, step ${step}`;
        expect(keptRows(db), context).toEqual(scratchRows(db));
        const reviewedAt = storeMark(db, storeId).reviewedAt;
        const times = db
          .prepare(
            `SELECT at FROM user.test_snapshots WHERE store_id = ? ORDER BY random() LIMIT 2`,
          )
          .all(storeId) as { at: string }[];
        const windows = [
          reviewedAt,
          firstSnapshotAt(db, storeId),
          '2000-01-01T00:00:00.000Z',
          iso(day - Math.floor(random() * 15)),
          ...times.map((t) => t.at),
        ];
        for (const since of windows) {
          if (since === null) continue;
          expect(
            flat(netChanges(db, storeId, { since, reviewedAt }, THRESHOLD)),
            `${context}, since ${since}`,
          ).toEqual(flat(reference(db, storeId, since)));
        }
      }
      db.close();
    }
  }, 120_000);

  it('are worked out when a user file of the previous layout is opened', () => {
    const cacheFile = join(tempDir(), 'cache.db');
    const userFile = join(tempDir(), 'user.db');
    const old = new Database(cacheFile);
    old.prepare('ATTACH DATABASE ? AS user').run(userFile);
    migrate(
      old,
      USER_DATA_MIGRATIONS.filter((m) => m.version <= 8),
      'user',
    );
    const insert = old.prepare(
      `INSERT INTO user.test_snapshots (store_id, test_id, at, baseline, drift, probability_to_win, state, changes)
       VALUES ('s', ?, ?, ?, ?, ?, '{}', ?)`,
    );
    const rows: [string, number, number, number, number, Changes][] = [
      ['a', 1, 1, 0, 0.4, {}],
      ['a', 3, 0, 0, 0.5, { status: ['active', 'paused'], 'tier:2': ['x', 'y'] }],
      ['a', 5, 0, 1, 0.6, { probabilityToWin: [0.5, 0.6] }],
      ['a', 7, 0, 0, 0.9, { status: ['paused', 'active'], title: ['Old', 'New “one”'] }],
      ['a', 9, 0, 0, 0.9, { status: ['active', 'completed'], lift: [1, 2] }],
      ['b', 8, 0, 0, 0.2, { added: [null, 'active'] }],
    ];
    for (const [test, day, baseline, drift, p, changes] of rows)
      insert.run(test, iso(day), baseline, drift, p, JSON.stringify(changes));
    for (const test of ['a', 'b'])
      old
        .prepare(`INSERT INTO user.test_state (store_id, test_id, state) VALUES ('s', ?, '{}')`)
        .run(test);
    old.prepare(`INSERT INTO user.store_marks (store_id, reviewed_at) VALUES ('s', ?)`).run(iso(6));
    old.close();

    const db = openDatabase(cacheFile, { userDataFile: userFile });
    addStore(db, 's');
    refreshReviewEnds(db, 's');
    expect(keptRows(db)).toEqual(scratchRows(db));
    expect(keptRows(db).map((r) => r.field)).toEqual(['status', 'tier:2', 'title', 'added']);
    for (const since of [iso(6), iso(0), iso(3), iso(4)]) {
      const nets = netChanges(db, 's', { since, reviewedAt: iso(6) }, THRESHOLD);
      expect(flat(nets), since).toEqual(flat(reference(db, 's', since)));
    }
    const status: Net | undefined = netChanges(db, 's', { since: iso(6), reviewedAt: iso(6) }, 0)
      .get('a')
      ?.get('status');
    expect(status).toEqual({ from: 'paused', to: 'completed', at: iso(9) });
    db.close();
  });
});
