// Migration 13 on a cache synced by the previous version, and the refresh at core start that makes the
// missing or stale calls (and rate fits) a batch at a time, without holding up the first list.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { decideTest, DEFAULT_DECISION_SETTINGS } from '#shared/domain/decisions/index';
import { MIGRATIONS, migrate } from '#core/db/cache/migrations/index';
import { openDatabase } from '#core/db/open';
import { unpackJson } from '#core/db/values';
import { decisionLinesSql } from '#core/db/cache/decisions';
import { readStaleCalls, writeStaleCalls } from '#core/decisions/stale';
import { storeBasis } from '#core/decisions/basis';
import { FACTS_VERSION } from '#core/decisions/facts';
import { REFRESH_BATCH_ROWS } from '#core/decisions/refresh';
import type { Core } from '#core/types';
import { allTestRows, startCore, syncStore, tempDir } from '../support/core';
import { asStored, makeCallsInPlace, nextEvent, testsWithResults } from './support';

const data = tempDir('splitbook-decisions-storage-');
const cacheFile = join(data.path, 'splitbook.db');
const simulator = createSimulator({ seed: 5, stores: [{ name: 'Acme', tests: 160 }] });
let served: ServedSimulator;
let storeId = '';

/** What version 21 of the cache was: migration 22 undone (each test's raw record as text, not packed). */
const UNDO_22 = `
CREATE TEMP TABLE tests_raw_text AS SELECT seq, raw_json FROM tests_raw;
DROP VIEW tests_raw;
DROP TABLE tests_raw_packed;
CREATE TABLE tests_raw (
  seq      INTEGER PRIMARY KEY REFERENCES tests (seq) ON DELETE CASCADE,
  raw_json TEXT NOT NULL
) STRICT;
INSERT INTO tests_raw (seq, raw_json) SELECT seq, raw_json FROM tests_raw_text;
DROP TABLE tests_raw_text;
PRAGMA user_version = 21;
`;

/** What version 20 of the cache was: migration 21 undone (each call's JSON as text, not packed). */
const UNDO_21 = `${UNDO_22}
CREATE TABLE tests_decision_text (
  seq           INTEGER PRIMARY KEY REFERENCES tests (seq) ON DELETE CASCADE,
  decision_json TEXT NOT NULL
) STRICT;
INSERT INTO tests_decision_text (seq, decision_json) SELECT seq, unpack_json(decision_packed) FROM tests_decision;
DROP TABLE tests_decision;
ALTER TABLE tests_decision_text RENAME TO tests_decision;
PRAGMA user_version = 20;
`;

/** What version 17 of the cache was: migration 18 undone (the review memory's parts of results). */
const UNDO_18 = `${UNDO_21}
ALTER TABLE results DROP COLUMN review_parts;
PRAGMA user_version = 17;
`;

/** What version 16 of the cache was: migration 17 undone (the titles' covering index). */
const UNDO_17 = `${UNDO_18}
DROP INDEX tests_titles;
PRAGMA user_version = 16;
`;

/** What version 15 of the cache was: migration 16 undone (the Decisions view's covering index). */
const UNDO_16 = `${UNDO_17}
DROP INDEX tests_decision_lines;
PRAGMA user_version = 15;
`;

/** What version 14 of the cache was: migration 15 undone (the calls' facts, filled in as calls are made). */
const UNDO_15 = `${UNDO_16}
DROP TABLE results_facts;
PRAGMA user_version = 14;
`;

/** What version 13 of the cache was: migrations 15 and 14 undone. */
const UNDO_14 = `${UNDO_15}
ALTER TABLE tests DROP COLUMN decision_basis;
ALTER TABLE tests DROP COLUMN decision_date;
PRAGMA user_version = 13;
`;

/** What version 12 of the cache was: migrations 15, 14 and 13 undone, their data with them. */
const UNDO_13 = `${UNDO_14}
DROP INDEX tests_by_goal_lift;
DROP INDEX tests_by_goal_p_win;
DROP INDEX tests_by_decision;
DROP TABLE tests_decision;
ALTER TABLE tests DROP COLUMN decision;
ALTER TABLE tests DROP COLUMN decision_words;
ALTER TABLE tests DROP COLUMN decision_reason;
ALTER TABLE tests DROP COLUMN days_to_decision;
ALTER TABLE tests DROP COLUMN goal_lift;
ALTER TABLE tests DROP COLUMN goal_p_win;
ALTER TABLE tests DROP COLUMN decision_key;
ALTER TABLE tests DROP COLUMN decided_at;
ALTER TABLE results DROP COLUMN rate_fits;
PRAGMA user_version = 12;
`;

/**
 * The cache file opened outside the core, with the SQL function the core's opener adds that these
 * steps read packed calls with (db/open.ts unpack_json, cache migration 21).
 */
function openCache(options?: Database.Options): Database.Database {
  const db = new Database(cacheFile, options);
  db.function('unpack_json', { deterministic: true }, (packed: unknown) =>
    packed instanceof Uint8Array ? unpackJson(packed) : null,
  );
  return db;
}

function schemaOf(db: Database.Database): unknown[] {
  return db
    .prepare(
      `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`,
    )
    .all();
}

function readCache<T>(read: (db: Database.Database) => T): T {
  const db = openCache({ readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

async function expectEveryCall(core: Core): Promise<number> {
  const cases = await testsWithResults(core, storeId);
  for (const { test, results } of cases) {
    const expected = asStored(
      decideTest({ test, results, settings: DEFAULT_DECISION_SETTINGS, planSource: 'setting' }),
    );
    expect(
      (await core.services.tests.get({ storeId, testId: test.id })).decision,
      test.title,
    ).toEqual(expected);
  }
  return cases.length;
}

beforeAll(async () => {
  served = await serveSimulator(simulator);
  const core = await startCore(data.path, { clock: () => simulator.now() });
  const store = simulator.stores[0];
  storeId = (
    await core.services.stores.add({
      name: 'Acme',
      baseUrl: served.url,
      apiKey: store?.apiKey ?? '',
      sessionOnly: true,
    })
  ).id;
  expect((await syncStore(core, storeId)).outcome).toBe('ok');
  await core.close();
}, 60_000);

afterAll(async () => {
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('migration 16', { timeout: 60_000 }, () => {
  it("brings a cache of version 15 up; the Decisions view's lines are read from the index alone, the same as before", async () => {
    let core = await startCore(data.path, { clock: () => simulator.now() });
    const before = await core.services.decisions.lines({ storeId });
    const all = await core.services.decisions.lines({ storeId: null });
    await core.close();
    expect(before.rows.length).toBeGreaterThan(0);
    const old = openCache();
    old.exec(UNDO_16);
    old.close();
    core = await startCore(data.path, { clock: () => simulator.now() });
    try {
      expect(await core.services.decisions.lines({ storeId })).toEqual(before);
      expect(await core.services.decisions.lines({ storeId: null })).toEqual(all);
      const plans = readCache((db) =>
        [null, storeId].map((scope) =>
          db
            .prepare(`EXPLAIN QUERY PLAN ${decisionLinesSql(scope)}`)
            .all(scope === null ? {} : { storeId: scope })
            .map((row) => (row as { detail: string }).detail)
            .join(' | '),
        ),
      );
      expect(plans[0]).toMatch(/SCAN t USING COVERING INDEX tests_decision_lines/);
      expect(plans[1]).toMatch(/SEARCH t USING COVERING INDEX tests_decision_lines \(store_id=\?/);
    } finally {
      await core.close();
    }
  });
});

describe('migration 15', { timeout: 60_000 }, () => {
  it('brings a cache of version 14 up; the next calls made again come from the results and keep their facts', async () => {
    const old = openCache();
    old.exec(UNDO_15);
    old.exec(`UPDATE tests SET decision_key = '0:older'`);
    old.close();
    const core = await startCore(data.path, { clock: () => simulator.now() });
    try {
      await nextEvent(core, 'decisions.changed', (payload) => payload.storeId === null);
      const decided = await expectEveryCall(core);
      const kept = readCache((db) =>
        db
          .prepare(
            `SELECT count(*) AS n FROM results_facts f
             JOIN results r ON r.store_id = f.store_id AND r.test_id = f.test_id WHERE f.version = ?`,
          )
          .get(FACTS_VERSION),
      );
      expect(kept).toEqual({ n: decided });
    } finally {
      await core.close();
    }
  });
});

describe('migration 14', { timeout: 60_000 }, () => {
  it("fills in each call's basis and decision date from the calls kept, as the Decisions view reads them", async () => {
    const fromJson = () =>
      readCache((db) =>
        db
          .prepare(
            `SELECT t.id, json_extract(unpack_json(d.decision_packed), '$.basis') AS basis,
                    json_extract(unpack_json(d.decision_packed), '$.decisionDate') AS date
             FROM tests t JOIN tests_decision d ON d.seq = t.seq ORDER BY t.id`,
          )
          .all(),
      );
    const expected = fromJson();
    expect(expected.length).toBeGreaterThan(0);
    const old = openCache();
    old.exec(UNDO_14);
    old.close();
    const core = await startCore(data.path, { clock: () => simulator.now() });
    try {
      const columns = readCache((db) =>
        db
          .prepare(
            `SELECT id, decision_basis AS basis, decision_date AS date FROM tests
             WHERE decision IS NOT NULL ORDER BY id`,
          )
          .all(),
      );
      expect(columns).toEqual(expected);
      const listed = await core.services.decisions.list({ storeId });
      expect(listed.rows.every((row) => row.basis.length > 0)).toBe(true);
    } finally {
      await core.close();
    }
  });
});

describe('migration 13 and the refresh at start', { timeout: 60_000 }, () => {
  it('brings a cache of version 12 up, then makes every call in the background, the first list answering at once', async () => {
    // The cache as the previous version left it: its schema exactly a fresh version 12's.
    const old = openCache();
    old.exec(UNDO_13);
    const v12 = new Database(':memory:');
    migrate(v12, MIGRATIONS.slice(0, 12));
    expect(schemaOf(old)).toEqual(schemaOf(v12));
    v12.close();
    old.close();

    const core = await startCore(data.path, { clock: () => simulator.now() });
    try {
      const done = nextEvent(core, 'decisions.changed', (payload) => payload.storeId === null);
      // Nothing was decided yet when the first list answered: the calls come a batch at a time after it.
      const first = await allTestRows(core, storeId);
      expect(first.length).toBe(160);
      expect(first.every((row) => row.decision === null && row.goalLift === null)).toBe(true);
      await done;

      expect(readCache((db) => db.pragma('user_version', { simple: true }))).toBe(
        MIGRATIONS.length,
      );
      const decided = await expectEveryCall(core);
      expect(decided).toBeGreaterThan(REFRESH_BATCH_ROWS * 2);
      expect(
        readCache((db) =>
          db.prepare('SELECT count(*) AS n FROM results WHERE rate_fits IS NULL').get(),
        ),
      ).toEqual({ n: 0 });
      const rows = await allTestRows(core, storeId);
      expect(rows.filter((row) => row.decision !== null).length).toBeGreaterThan(0);
    } finally {
      await core.close();
    }
  });

  it('makes again only the calls whose key is stale (an older version, other settings), and says so', async () => {
    const before = readCache((db) =>
      db
        .prepare(
          'SELECT id, decided_at AS decidedAt, decision_key AS decisionKey FROM tests WHERE decision_key IS NOT NULL ORDER BY seq',
        )
        .all(),
    ) as { id: string; decidedAt: string; decisionKey: string }[];
    const stale = before.slice(0, 3).map((row) => row.id);
    const db = openCache();
    db.prepare(
      `UPDATE tests SET decision_key = '0:older', decision = 'ship' WHERE id IN (SELECT value FROM json_each(?))`,
    ).run(JSON.stringify(stale));
    db.close();

    const core = await startCore(data.path, { clock: () => simulator.now() + 60_000 });
    try {
      await nextEvent(core, 'decisions.changed', (payload) => payload.storeId === null);
      const after = new Map(
        (
          readCache((db) =>
            db
              .prepare('SELECT id, decided_at AS decidedAt, decision_key AS decisionKey FROM tests')
              .all(),
          ) as {
            id: string;
            decidedAt: string;
            decisionKey: string;
          }[]
        ).map((row) => [row.id, row]),
      );
      for (const row of before) {
        const now = after.get(row.id);
        expect(now?.decisionKey).toBe(row.decisionKey);
        if (stale.includes(row.id)) expect(now?.decidedAt, 'made again').not.toBe(row.decidedAt);
        else expect(now?.decidedAt, 'left alone').toBe(row.decidedAt);
      }
      await expectEveryCall(core);
    } finally {
      await core.close();
    }
  });

  it('starts quietly when nothing is stale', async () => {
    const core = await startCore(data.path, { clock: () => simulator.now() });
    const events: string[] = [];
    const stop = core.subscribe((event) => events.push(event.name));
    try {
      await core.services.decisions.list({ storeId: null });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(events).not.toContain('decisions.changed');
    } finally {
      stop();
      await core.close();
    }
  });

  it('makes calls a bounded batch at a time, in the order of the rows', () => {
    const db = openDatabase(cacheFile, { userDataFile: join(data.path, 'splitbook-user.db') });
    try {
      db.exec('UPDATE tests SET decision_key = NULL');
      const at = '2026-01-01T00:00:00.000Z';
      const batch = (afterSeq: number, limit: number) => {
        const read = readStaleCalls(db, { storeId, afterSeq, limit });
        return { read, written: writeStaleCalls(db, read, makeCallsInPlace(read), at) };
      };
      const first = batch(0, 5);
      expect(first.written).toBe(5);
      expect(first.read.calls.map((call) => call.seq)).toEqual(
        [...first.read.calls.map((call) => call.seq)].sort((a, b) => a - b),
      );
      expect(first.read.afterSeq).toBe(first.read.calls.at(-1)?.seq);
      const decidedSoFar = () =>
        (
          db.prepare('SELECT count(*) AS n FROM tests WHERE decision_key IS NOT NULL').get() as {
            n: number;
          }
        ).n;
      expect(decidedSoFar()).toBe(5);
      // Calls read but not answered (a refresh stopped mid-batch) stay stale, and are read again.
      const unanswered = readStaleCalls(db, {
        storeId,
        afterSeq: first.read.afterSeq ?? 0,
        limit: 3,
      });
      expect(writeStaleCalls(db, unanswered, [], at)).toBe(
        unanswered.calls.filter((call) => call.from !== 'facts').length,
      );
      let afterSeq: number | null = first.read.afterSeq;
      while (afterSeq !== null) afterSeq = batch(afterSeq, 50).read.afterSeq;
      const withResults = (db.prepare('SELECT count(*) AS n FROM results').get() as { n: number })
        .n;
      expect(decidedSoFar()).toBe(withResults);
      const key = storeBasis(db, storeId).key;
      const keys = db
        .prepare('SELECT DISTINCT decision_key AS k FROM tests WHERE decision_key IS NOT NULL')
        .all();
      expect(keys).toEqual([{ k: key }]);
    } finally {
      db.close();
    }
  });
});
