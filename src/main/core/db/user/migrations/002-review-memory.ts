// User-data migration 2: the review memory (test snapshots, review marks, notes, store annotations). Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * The user's memory of the stores, which no server can give back: every material change a sync saw
 * (append-only snapshots plus each test's last seen state to compare with), when each store was last
 * reviewed, notes per test and dated annotations per store. Keyed by store id, which a re-key keeps.
 */
const SQL = `
CREATE TABLE user.test_state (
  store_id           TEXT NOT NULL,
  test_id            TEXT NOT NULL,
  state              TEXT NOT NULL,
  -- fetched_at of the results the state was taken from: unchanged results are not read again.
  results_fetched_at TEXT,
  PRIMARY KEY (store_id, test_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE user.test_snapshots (
  id       INTEGER PRIMARY KEY,
  store_id TEXT NOT NULL,
  test_id  TEXT NOT NULL,
  at       TEXT NOT NULL,
  -- 1 for what the first sync of a store saw: a starting point, not a change.
  baseline INTEGER NOT NULL CHECK (baseline IN (0, 1)),
  -- 1 when only the running figures moved (visitors, lift, probability): thinned with age, and
  -- skipped by the Changes view, which compares the probability at both ends instead.
  drift    INTEGER NOT NULL CHECK (drift IN (0, 1)),
  -- The API's probability to win after this snapshot, beside the JSON so the ends compare by index.
  probability_to_win REAL,
  state    TEXT NOT NULL,
  changes  TEXT NOT NULL
) STRICT;
CREATE INDEX user.test_snapshots_by_store ON test_snapshots (store_id, drift, at);
CREATE INDEX user.test_snapshots_by_test ON test_snapshots (store_id, test_id, at);

CREATE TABLE user.store_marks (
  store_id        TEXT PRIMARY KEY,
  reviewed_at     TEXT,
  compacted_until TEXT
) STRICT;

CREATE TABLE user.notes (
  store_id   TEXT NOT NULL,
  test_id    TEXT NOT NULL,
  body       TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (store_id, test_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE user.store_annotations (
  id         INTEGER PRIMARY KEY,
  store_id   TEXT NOT NULL,
  day        TEXT NOT NULL,
  label      TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX user.store_annotations_by_store ON store_annotations (store_id, day);
`;

export const userMigration002: Migration = { version: 2, up: (db) => db.exec(SQL) };
