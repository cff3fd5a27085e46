// Opening the cache: connection settings, migrations from every earlier version, and refusing files it must not touch.
import { readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync } from 'node:zlib';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  MIGRATIONS,
  migrate,
  schemaVersion,
  type Migration,
} from '#core/db/cache/migrations/index';
import { openDatabase, WAL_CHECKPOINT_PAGES } from '#core/db/open';
import { getResults, listTests } from '#core/db/cache/reads';
import { PROBLEM_TYPES, ProblemError } from '#shared/problem';
import { TestListInput } from '#shared/contract/index';
import type { Db } from '#core/db/types';
import { unpackDays } from '#core/decisions/facts';
import { portfolioRows } from '#core/db/cache/portfolio';
import { packText, unpackText } from '#core/db/values';
import { makeResults, tempDir } from './fixtures';

const LATEST = MIGRATIONS.length;

function schemaOf(db: Db): string[] {
  return db
    .prepare<[], { sql: string }>(
      `SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name`,
    )
    .all()
    .map((row) => row.sql);
}

/** Runs `fn` expecting a ProblemError, and returns it. */
function problemFrom(fn: () => unknown): ProblemError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  throw new Error('expected a ProblemError');
}

describe('openDatabase', () => {
  it('creates a new cache with WAL, foreign keys and the newest schema', () => {
    const file = join(tempDir(), 'nested', 'folder', 'cache.db');
    const db = openDatabase(file);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
      expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
      // Checkpoints every 40 MB of log, not every 4 MB (the sync's writes, open.ts).
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_CHECKPOINT_PAGES);
      expect(db.pragma('journal_size_limit', { simple: true })).toBe(64 * 1024 * 1024);
      expect(schemaVersion(db)).toBe(LATEST);
    } finally {
      db.close();
    }
  });

  it('reopens an up-to-date cache without changing it', () => {
    const file = join(tempDir(), 'cache.db');
    const first = openDatabase(file);
    const schema = schemaOf(first);
    first.close();
    const again = openDatabase(file);
    expect(schemaOf(again)).toEqual(schema);
    expect(schemaVersion(again)).toBe(LATEST);
    again.close();
  });

  it("holds the user's file too in an immediate transaction, on a folder that needs no migration", () => {
    // Two processes on one folder: a write transaction of one must keep the other out of both files,
    // or the other's write (its own transaction begun before) fails at once with "database is locked".
    const dir = tempDir();
    const cacheFile = join(dir, 'splitbook.db');
    const userDataFile = join(dir, 'splitbook-user.db');
    openDatabase(cacheFile, { userDataFile }).close();
    const db = openDatabase(cacheFile, { userDataFile });
    const other = new Database(userDataFile, { timeout: 0 });
    try {
      db.transaction(() => {
        expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(
          expect.objectContaining({ code: 'SQLITE_BUSY' }),
        );
      }).immediate();
      // Once it ends, the other gets in.
      other.exec('BEGIN IMMEDIATE');
      other.exec('COMMIT');
    } finally {
      other.close();
      db.close();
    }
  });

  it('migrates a cache from every earlier version to the same schema as a fresh one', () => {
    const dir = tempDir();
    const fresh = openDatabase(join(dir, 'fresh.db'));
    const expected = schemaOf(fresh);
    fresh.close();

    for (let version = 0; version < LATEST; version += 1) {
      const file = join(dir, `from-v${version}.db`);
      const old = new Database(file);
      migrate(old, MIGRATIONS.slice(0, version));
      expect(schemaVersion(old)).toBe(version);
      old.close();

      const db = openDatabase(file);
      expect(schemaVersion(db), `from v${version}`).toBe(LATEST);
      expect(schemaOf(db), `from v${version}`).toEqual(expected);
      db.close();
    }
  });

  it('migrated one step at a time, a release after another, equals a cache created fresh', () => {
    const dir = tempDir();
    const fresh = openDatabase(join(dir, 'fresh.db'));
    const expected = schemaOf(fresh);
    fresh.close();

    const file = join(dir, 'stepwise.db');
    for (let version = 1; version <= LATEST; version += 1) {
      const db = new Database(file);
      expect(migrate(db, MIGRATIONS.slice(0, version))).toEqual({ from: version - 1, to: version });
      db.close();
    }
    const db = openDatabase(file);
    expect(schemaVersion(db)).toBe(LATEST);
    expect(schemaOf(db)).toEqual(expected);
    db.close();
  });

  it('makes tests cached under v1 searchable after the upgrade', () => {
    const file = join(tempDir(), 'cache.db');
    const v1 = new Database(file);
    migrate(v1, MIGRATIONS.slice(0, 1));
    v1.exec(`
      INSERT INTO stores (id, name, base_url, kind, key_storage, created_at)
        VALUES ('s1', 'Shop', 'https://shop.example.com', 'api', 'keychain', '2026-01-01T00:00:00Z');
      INSERT INTO tests (store_id, id, title, status, stage, goal, device, visitor_option, created_at, updated_at, synced_at)
        VALUES ('s1', 't1', 'Free shipping bar', 'active', 'idea', 'conversion', 'all', 'all',
                '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z');`);
    v1.close();

    const db = openDatabase(file);
    const page = listTests(db, TestListInput.parse({ search: 'ship' }));
    expect(page.rows.map((row) => row.id)).toEqual(['t1']);
    db.close();
  });

  it('gives tests whose results were cached under v2 their lifecycle tier after the upgrade', () => {
    const file = join(tempDir(), 'cache.db');
    const v2 = new Database(file);
    v2.pragma('foreign_keys = ON');
    migrate(v2, MIGRATIONS.slice(0, 2));
    // The v2 writers are the ones this version ships, minus the tier column: write through them.
    v2.exec(`
      INSERT INTO stores (id, name, base_url, kind, key_storage, created_at)
        VALUES ('s1', 'Shop', 'https://shop.example.com', 'api', 'keychain', '2026-01-01T00:00:00Z');
      INSERT INTO tests (store_id, id, title, status, stage, goal, device, visitor_option, created_at, updated_at, synced_at)
        VALUES ('s1', 't1', 'Free shipping bar', 'completed', 'idea', 'conversion', 'all', 'all',
                '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z');
      INSERT INTO results (store_id, test_id, status, total_visitors, control_split, variant_split, lift, change_revenue,
                           control_probability_win, variant_probability_win, tier, probability_to_win, not_yet_stable,
                           fetched_at, test_updated_at, test_status)
        VALUES ('s1', 't1', 'completed', 100, 50, 50, 4.2, 10, 0.03, 0.97, 'significant', 0.97, 0,
                '2026-01-03T00:00:00Z', '2026-01-02T00:00:00Z', 'completed');`);
    v2.close();

    const db = openDatabase(file);
    expect(listTests(db, TestListInput.parse({})).rows[0]?.tier).toBe('significant');
    db.close();
  });

  it('compresses results cached under v4 and reads them back unchanged', () => {
    const TEST_ID = '00000000-0000-4000-8000-000000000001';
    const file = join(tempDir(), 'cache.db');
    const v4 = new Database(file);
    v4.pragma('foreign_keys = ON');
    migrate(v4, MIGRATIONS.slice(0, 4));
    const results = makeResults(TEST_ID);
    v4.exec(`
      INSERT INTO stores (id, name, base_url, kind, key_storage, created_at)
        VALUES ('s1', 'Shop', 'https://shop.example.com', 'api', 'keychain', '2026-01-01T00:00:00Z');
      INSERT INTO tests (store_id, id, title, status, stage, goal, device, visitor_option, created_at, updated_at, synced_at)
        VALUES ('s1', '${TEST_ID}', 'Free shipping bar', 'completed', 'idea', 'conversion', 'all', 'all',
                '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z');
      INSERT INTO results (store_id, test_id, status, total_visitors, control_split, variant_split, lift, change_revenue,
                           control_probability_win, variant_probability_win, tier, probability_to_win, not_yet_stable,
                           fetched_at, test_updated_at, test_status)
        VALUES ('s1', '${TEST_ID}', 'completed', 100, 50, 50, 4.2, 10, 0.03, 0.97, 'significant', 0.97, 0,
                '2026-01-03T00:00:00Z', '2026-01-02T00:00:00Z', 'completed');`);
    v4.prepare(`INSERT INTO results_raw (store_id, test_id, raw_json) VALUES ('s1', ?, ?)`).run(
      TEST_ID,
      JSON.stringify(results),
    );
    v4.close();

    const db = openDatabase(file);
    expect(getResults(db, 's1', TEST_ID)?.results).toEqual(results);
    const stored = db
      .prepare<[], { bytes: number }>(`SELECT length(raw_packed) AS bytes FROM results_raw`)
      .get();
    expect(stored?.bytes).toBeLessThan(JSON.stringify(results).length);
    db.close();
  });

  it('compresses the days of facts kept under v19 and reads them back bit for bit', () => {
    const TEST_ID = '00000000-0000-4000-8000-000000000001';
    const file = join(tempDir(), 'cache.db');
    const v19 = new Database(file);
    v19.pragma('foreign_keys = ON');
    migrate(v19, MIGRATIONS.slice(0, 19));
    v19.exec(`
      INSERT INTO stores (id, name, base_url, kind, key_storage, created_at)
        VALUES ('s1', 'Shop', 'https://shop.example.com', 'api', 'keychain', '2026-01-01T00:00:00Z');
      INSERT INTO tests (store_id, id, title, status, stage, goal, device, visitor_option, created_at, updated_at, synced_at)
        VALUES ('s1', '${TEST_ID}', 'Free shipping bar', 'completed', 'idea', 'conversion', 'all', 'all',
                '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z');
      INSERT INTO results (store_id, test_id, status, total_visitors, control_split, variant_split, lift, change_revenue,
                           control_probability_win, variant_probability_win, tier, probability_to_win, not_yet_stable,
                           fetched_at, test_updated_at, test_status)
        VALUES ('s1', '${TEST_ID}', 'completed', 100, 50, 50, 4.2, 10, 0.03, 0.97, 'significant', 0.97, 0,
                '2026-01-03T00:00:00Z', '2026-01-02T00:00:00Z', 'completed');`);
    // v19's format: thirteen float64 a day (the day's number, then control's and variant's six counts).
    const days = Array.from({ length: 30 }, (_, i) => {
      const side = (visitors: number) => ({
        visitors,
        conversions: Math.round(visitors / 30),
        carts: Math.round(visitors / 12),
        clicks: Math.round(visitors / 5),
        orders: Math.round(visitors / 32),
        revenue: visitors * 1.37,
      });
      return { dayNumber: 20_000 + i, control: side(400 + i), variant: side(410 + 2 * i) };
    });
    const floats = new Float64Array(
      days.flatMap((day) => [
        day.dayNumber,
        ...[day.control, day.variant].flatMap((s) => [
          s.visitors,
          s.conversions,
          s.carts,
          s.clicks,
          s.orders,
          s.revenue,
        ]),
      ]),
    );
    const plain = Buffer.from(floats.buffer);
    v19
      .prepare(
        `INSERT INTO results_facts (store_id, test_id, version, test_hash, facts, days) VALUES ('s1', ?, 'v', 'h', '{}', ?)`,
      )
      .run(TEST_ID, plain);
    v19.close();

    const db = openDatabase(file);
    const stored = db.prepare<[], { days: Uint8Array }>(`SELECT days FROM results_facts`).get();
    expect(stored?.days.byteLength).toBeLessThan(plain.byteLength / 2);
    expect(unpackDays(stored?.days ?? new Uint8Array())).toEqual(days);
    db.close();
  });

  it('compresses the calls kept under v20, their JSON read back as it was and the look date beside it', () => {
    const file = join(tempDir(), 'cache.db');
    const v20 = new Database(file);
    v20.pragma('foreign_keys = ON');
    migrate(v20, MIGRATIONS.slice(0, 20));
    const testRow = (n: number, decision: string) => `
      INSERT INTO tests (store_id, id, title, status, stage, goal, device, visitor_option, created_at, updated_at,
                         synced_at, decision)
        VALUES ('s1', '00000000-0000-4000-8000-00000000000${n}', 'Test ${n}', 'completed', 'idea', 'conversion',
                'all', 'all', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z', '${decision}');`;
    v20.exec(`
      INSERT INTO stores (id, name, base_url, kind, key_storage, created_at)
        VALUES ('s1', 'Shop', 'https://shop.example.com', 'api', 'keychain', '2026-01-01T00:00:00Z');
      ${testRow(1, 'ship')}${testRow(2, 'keep_running')}`);
    // v20's format: the call's JSON as text (its shape is the engine's; only its look's date is read in SQL).
    const basis = 'credibility 95%, effect ±5%, ≥7 days, ≥100 orders a side; '.repeat(4);
    const calls = [
      JSON.stringify({ call: 'ship', basis, look: { date: '2026-01-02', day: 2 }, guards: [] }),
      JSON.stringify({ call: 'keep_running', basis, look: null, guards: [] }),
    ];
    const save = v20.prepare(
      `INSERT INTO tests_decision (seq, decision_json)
       SELECT seq, ? FROM tests WHERE id = ?`,
    );
    save.run(calls[0], '00000000-0000-4000-8000-000000000001');
    save.run(calls[1], '00000000-0000-4000-8000-000000000002');
    v20.close();

    const db = openDatabase(file);
    const stored = db
      .prepare<[], { json: string; packed: number; lookDate: string | null }>(
        `SELECT unpack_json(d.decision_packed) AS json, length(d.decision_packed) AS packed,
                d.look_date AS lookDate
         FROM tests t JOIN tests_decision d ON d.seq = t.seq ORDER BY t.id`,
      )
      .all();
    expect(stored.map((row) => row.json)).toEqual(calls);
    expect(stored.map((row) => row.lookDate)).toEqual(['2026-01-02', null]);
    expect(portfolioRows(db).map((row) => row.decidedOn)).toEqual(['2026-01-02', null]);
    // Packed as calls are packed now: what the reads decompress.
    expect(unpackText(packText(calls[0] ?? ''))).toBe(calls[0]);
    expect(stored[0]?.packed).toBeLessThan(Buffer.byteLength(calls[0] ?? ''));
    db.close();
  });

  it("packs the tests' records kept under v21, read back through tests_raw as they were, and keeps their results readable", () => {
    const TEST_ID = '00000000-0000-4000-8000-000000000001';
    const file = join(tempDir(), 'cache.db');
    const v21 = new Database(file);
    v21.pragma('foreign_keys = ON');
    migrate(v21, MIGRATIONS.slice(0, 21));
    v21.exec(`
      INSERT INTO stores (id, name, base_url, kind, key_storage, created_at)
        VALUES ('s1', 'Shop', 'https://shop.example.com', 'api', 'keychain', '2026-01-01T00:00:00Z');
      INSERT INTO tests (store_id, id, title, status, stage, goal, device, visitor_option, created_at, updated_at, synced_at)
        VALUES ('s1', '${TEST_ID}', 'Free shipping bar', 'completed', 'idea', 'conversion', 'all', 'all',
                '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z');
      INSERT INTO results (store_id, test_id, status, total_visitors, control_split, variant_split, lift, change_revenue,
                           control_probability_win, variant_probability_win, tier, probability_to_win, not_yet_stable,
                           fetched_at, test_updated_at, test_status)
        VALUES ('s1', '${TEST_ID}', 'completed', 100, 50, 50, 4.2, 10, 0.03, 0.97, 'significant', 0.97, 0,
                '2026-01-03T00:00:00Z', '2026-01-02T00:00:00Z', 'completed');`);
    const record = JSON.stringify({
      id: TEST_ID,
      title: 'Free shipping bar',
      tags: [{ id: 't', name: 'Copy' }],
    });
    v21.prepare(`INSERT INTO tests_raw (seq, raw_json) SELECT seq, ? FROM tests`).run(record);
    // Results packed as v21 packed them (plain JSON, Brotli): read the same after the upgrade.
    const results = makeResults(TEST_ID);
    v21
      .prepare(`INSERT INTO results_raw (store_id, test_id, raw_packed) VALUES ('s1', ?, ?)`)
      .run(TEST_ID, brotliCompressSync(JSON.stringify(results)));
    v21.close();

    const db = openDatabase(file);
    const read = () =>
      db
        .prepare<[], { json: string; title: string; tag: string }>(
          `SELECT raw_json AS json, json_extract(raw_json, '$.title') AS title,
                  (SELECT value ->> 'name' FROM json_each(raw_json, '$.tags')) AS tag FROM tests_raw`,
        )
        .all();
    expect(read()).toEqual([{ json: record, title: 'Free shipping bar', tag: 'Copy' }]);
    const packed = db
      .prepare<[], { bytes: number }>(`SELECT length(raw_packed) AS bytes FROM tests_raw_packed`)
      .get();
    expect(packed?.bytes).toBeGreaterThan(0);
    expect(getResults(db, 's1', TEST_ID)?.results).toEqual(results);
    // tests_raw is written as before, through the view.
    db.prepare(`UPDATE tests_raw SET raw_json = json_set(raw_json, '$.title', 'Renamed')`).run();
    expect(read()[0]?.title).toBe('Renamed');
    db.prepare(`DELETE FROM tests_raw`).run();
    expect(read()).toEqual([]);
    db.prepare(`INSERT OR REPLACE INTO tests_raw (seq, raw_json) SELECT seq, ? FROM tests`).run(
      record,
    );
    expect(read()[0]?.json).toBe(record);
    db.close();
  });

  it('applies pending migrations in one transaction: a failing step leaves the file as it was', () => {
    const file = join(tempDir(), 'cache.db');
    const db = new Database(file);
    migrate(db, MIGRATIONS.slice(0, 1));
    const broken: Migration[] = [
      ...MIGRATIONS,
      {
        version: LATEST + 1,
        up: (d) => {
          d.exec('CREATE TABLE half_done (x)');
          throw new Error('step failed');
        },
      },
    ];
    expect(() => migrate(db, broken)).toThrow('step failed');
    expect(schemaVersion(db)).toBe(1);
    const tables = db
      .prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`)
      .all();
    expect(tables.map((t) => t.name)).not.toContain('half_done');
    expect(tables.map((t) => t.name)).not.toContain('set_aside'); // v2 rolled back with the failing v3
    db.close();
  });

  it('refuses migrations that are not numbered 1, 2, 3… in order', () => {
    const db = new Database(join(tempDir(), 'cache.db'));
    const [first, second] = MIGRATIONS;
    if (!first || !second) throw new Error('expected at least two migrations');
    expect(() => migrate(db, [second, first])).toThrow(/in order/);
    db.close();
  });

  it('refuses a cache written by a newer Splitbook, saying what to do, and leaves it untouched', () => {
    const file = join(tempDir(), 'cache.db');
    const newer = new Database(file);
    newer.pragma(`user_version = ${LATEST + 7}`);
    newer.close();

    const error = problemFrom(() => openDatabase(file));
    expect(error.problem.type).toBe(PROBLEM_TYPES.internal);
    expect(error.problem.status).toBe(409);
    expect(error.problem.detail).toBe(
      `This cache was written by a newer version of Splitbook (schema ${LATEST + 7}, this version knows up to ${LATEST}). ` +
        `Update Splitbook, or move ${file} aside to start a fresh cache.`,
    );
    const after = new Database(file);
    expect(schemaVersion(after)).toBe(LATEST + 7);
    after.close();
  });

  it('refuses a file that is not a database, and does not overwrite it', () => {
    const file = join(tempDir(), 'cache.db');
    const text = 'These are my notes, not a database. '.repeat(40);
    writeFileSync(file, text);

    const error = problemFrom(() => openDatabase(file));
    // The corrupt problem: the app offers to rebuild the cache (the file is moved aside, not overwritten).
    expect(error.problem.type).toBe(PROBLEM_TYPES.corrupt);
    expect(error.problem.detail).toContain(`${file} cannot be read correctly`);
    expect(error.problem.detail).toContain('Rebuild it');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('runs on an SQLite with FTS5 (the search index needs it)', () => {
    const db = new Database(':memory:');
    expect(db.prepare(`SELECT sqlite_compileoption_used('ENABLE_FTS5') AS on_`).pluck().get()).toBe(
      1,
    );
    db.close();
  });
});
