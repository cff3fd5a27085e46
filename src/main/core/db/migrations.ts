// The cache's schema as numbered migrations, recorded in PRAGMA user_version and applied in one transaction.
// A released migration is never edited: a change to the schema is a new migration at the end.
import { problem } from '../../../shared/problem';
import type { Db } from './types';

export type Migration = { version: number; up(db: Db): void };

/**
 * v1: stores and everything a sync writes. Every row is keyed by its store; a test's
 * parts hang off the test and results' parts off the results, so deleting a store
 * cascades through all of it. STRICT tables refuse a value of the wrong type.
 */
const V1_CORE = `
CREATE TABLE stores (
  id                TEXT PRIMARY KEY,
  name              TEXT NOT NULL,
  base_url          TEXT NOT NULL,
  kind              TEXT NOT NULL CHECK (kind IN ('api', 'demo')),
  key_storage       TEXT NOT NULL CHECK (key_storage IN ('keychain', 'session', 'none')),
  created_at        TEXT NOT NULL,
  last_synced_at    TEXT,
  last_finished_at  TEXT,
  last_outcome      TEXT,
  last_problem_json TEXT,
  position          INTEGER NOT NULL DEFAULT 0
) STRICT;

-- seq is the stable rowid the search index refers to (an unaliased rowid may change on VACUUM).
CREATE TABLE tests (
  seq                INTEGER PRIMARY KEY,
  store_id           TEXT NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id                 TEXT NOT NULL,
  title              TEXT NOT NULL,
  status             TEXT NOT NULL,
  stage              TEXT NOT NULL,
  goal               TEXT NOT NULL,
  device             TEXT NOT NULL,
  visitor_option     TEXT NOT NULL,
  hypothesis         TEXT,
  handle             TEXT,
  campaign_id        TEXT,
  campaign_name      TEXT,
  start_at           TEXT,
  end_at             TEXT,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL,
  priority           TEXT,
  surface_area       TEXT,
  impact             INTEGER,
  effort             INTEGER,
  implemented        INTEGER CHECK (implemented IN (0, 1)),
  -- JSON array of the tag names, so a list page needs no join to show them.
  tag_names          TEXT NOT NULL DEFAULT '[]',
  -- Copied from the cached results by upsertResults, so the list sorts on them with an index.
  probability_to_win REAL,
  lift               REAL,
  visitors           INTEGER,
  synced_at          TEXT NOT NULL,
  last_seen_run      TEXT,
  removed            INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1)),
  UNIQUE (store_id, id)
) STRICT;

-- The raw JSON lives beside the row, not in it: kilobytes of JSON per row would make
-- every list scan and filter read many pages; the typed row stays a few hundred bytes.
CREATE TABLE tests_raw (
  seq      INTEGER PRIMARY KEY REFERENCES tests (seq) ON DELETE CASCADE,
  raw_json TEXT NOT NULL
) STRICT;

CREATE TABLE test_sides (
  store_id       TEXT NOT NULL,
  test_id        TEXT NOT NULL,
  side           TEXT NOT NULL CHECK (side IN ('control', 'variant')),
  side_id        TEXT NOT NULL,
  type           TEXT NOT NULL,
  suffix         TEXT NOT NULL,
  theme_id       INTEGER NOT NULL,
  traffic        INTEGER NOT NULL,
  title          TEXT,
  redirect_url   TEXT,
  screenshot_url TEXT,
  PRIMARY KEY (store_id, test_id, side),
  FOREIGN KEY (store_id, test_id) REFERENCES tests (store_id, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE TABLE tags (
  store_id TEXT NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id       TEXT NOT NULL,
  name     TEXT NOT NULL,
  PRIMARY KEY (store_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE test_tags (
  store_id TEXT NOT NULL,
  test_id  TEXT NOT NULL,
  tag_id   TEXT NOT NULL,
  name     TEXT NOT NULL,
  PRIMARY KEY (store_id, test_id, tag_id),
  FOREIGN KEY (store_id, test_id) REFERENCES tests (store_id, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE TABLE test_custom_audiences (
  store_id    TEXT NOT NULL,
  test_id     TEXT NOT NULL,
  audience_id TEXT NOT NULL,
  name        TEXT NOT NULL,
  PRIMARY KEY (store_id, test_id, audience_id),
  FOREIGN KEY (store_id, test_id) REFERENCES tests (store_id, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
CREATE INDEX test_custom_audiences_by_audience ON test_custom_audiences (store_id, audience_id);

CREATE TABLE default_audiences (
  store_id  TEXT NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id        TEXT NOT NULL,
  name      TEXT NOT NULL,
  dimension TEXT NOT NULL,
  operator  TEXT NOT NULL,
  value     TEXT NOT NULL,
  PRIMARY KEY (store_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE test_default_audiences (
  store_id    TEXT NOT NULL,
  test_id     TEXT NOT NULL,
  audience_id TEXT NOT NULL,
  PRIMARY KEY (store_id, test_id, audience_id),
  FOREIGN KEY (store_id, test_id) REFERENCES tests (store_id, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

-- test_updated_at and test_status: the test as it was when these results were fetched,
-- which is how a re-sync tells whether the results can have changed.
CREATE TABLE results (
  store_id                TEXT NOT NULL,
  test_id                 TEXT NOT NULL,
  status                  TEXT NOT NULL,
  total_visitors          INTEGER NOT NULL,
  control_split           INTEGER NOT NULL,
  variant_split           INTEGER NOT NULL,
  winner                  TEXT,
  lift                    REAL NOT NULL,
  change_revenue          REAL NOT NULL,
  control_probability_win REAL NOT NULL,
  variant_probability_win REAL NOT NULL,
  tier                    TEXT NOT NULL,
  leading_variant         TEXT,
  probability_to_win      REAL NOT NULL,
  not_yet_stable          INTEGER NOT NULL CHECK (not_yet_stable IN (0, 1)),
  tier_reached_at         TEXT,
  fetched_at              TEXT NOT NULL,
  test_updated_at         TEXT NOT NULL,
  test_status             TEXT NOT NULL,
  PRIMARY KEY (store_id, test_id),
  FOREIGN KEY (store_id, test_id) REFERENCES tests (store_id, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

-- Results' raw JSON (tens of kilobytes with a long daily series) apart, as for tests.
CREATE TABLE results_raw (
  store_id TEXT NOT NULL,
  test_id  TEXT NOT NULL,
  raw_json TEXT NOT NULL,
  PRIMARY KEY (store_id, test_id),
  FOREIGN KEY (store_id, test_id) REFERENCES results (store_id, test_id) ON DELETE CASCADE
) STRICT;

-- One row per side and segment ('all' is the side's top level).
CREATE TABLE result_sides (
  store_id                          TEXT NOT NULL,
  test_id                           TEXT NOT NULL,
  side                              TEXT NOT NULL CHECK (side IN ('control', 'variant')),
  segment                           TEXT NOT NULL CHECK (segment IN ('all', 'mobile', 'desktop', 'new', 'returning')),
  visitors                          INTEGER NOT NULL,
  visits                            INTEGER NOT NULL,
  clicks                            INTEGER NOT NULL,
  carts                             INTEGER NOT NULL,
  conversions                       INTEGER NOT NULL,
  orders                            INTEGER NOT NULL,
  total_orders                      INTEGER NOT NULL,
  total_conversions                 INTEGER NOT NULL,
  initial_subscription_conversions  INTEGER NOT NULL,
  initial_subscription_orders       INTEGER NOT NULL,
  initial_subscription_revenue      REAL NOT NULL,
  cnv                               REAL NOT NULL,
  cvr                               REAL NOT NULL,
  aov                               REAL NOT NULL,
  rps                               REAL NOT NULL,
  rpv                               REAL NOT NULL,
  ctr                               REAL NOT NULL,
  acr                               REAL NOT NULL,
  revenue                           REAL NOT NULL,
  total_revenue                     REAL NOT NULL,
  PRIMARY KEY (store_id, test_id, side, segment),
  FOREIGN KEY (store_id, test_id) REFERENCES results (store_id, test_id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE TABLE result_daily (
  store_id                          TEXT NOT NULL,
  test_id                           TEXT NOT NULL,
  day                               TEXT NOT NULL,
  side                              TEXT NOT NULL CHECK (side IN ('control', 'variant')),
  visitors                          INTEGER NOT NULL,
  visits                            INTEGER NOT NULL,
  clicks                            INTEGER NOT NULL,
  carts                             INTEGER NOT NULL,
  conversions                       INTEGER NOT NULL,
  orders                            INTEGER NOT NULL,
  total_orders                      INTEGER NOT NULL,
  total_conversions                 INTEGER NOT NULL,
  initial_subscription_conversions  INTEGER NOT NULL,
  initial_subscription_orders       INTEGER NOT NULL,
  initial_subscription_revenue      REAL NOT NULL,
  cnv                               REAL NOT NULL,
  cvr                               REAL NOT NULL,
  aov                               REAL NOT NULL,
  rps                               REAL NOT NULL,
  rpv                               REAL NOT NULL,
  ctr                               REAL NOT NULL,
  acr                               REAL NOT NULL,
  revenue                           REAL NOT NULL,
  total_revenue                     REAL NOT NULL,
  PRIMARY KEY (store_id, test_id, day, side),
  FOREIGN KEY (store_id, test_id) REFERENCES results (store_id, test_id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE TABLE result_lifecycles (
  store_id           TEXT NOT NULL,
  test_id            TEXT NOT NULL,
  goal               INTEGER NOT NULL,
  tier               TEXT NOT NULL,
  tier_reached_at    TEXT,
  leading_variant    TEXT,
  probability_to_win REAL NOT NULL,
  not_yet_stable     INTEGER NOT NULL CHECK (not_yet_stable IN (0, 1)),
  PRIMARY KEY (store_id, test_id, goal),
  FOREIGN KEY (store_id, test_id) REFERENCES results (store_id, test_id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE TABLE campaigns (
  store_id        TEXT NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id              TEXT NOT NULL,
  name            TEXT NOT NULL,
  objective       TEXT,
  goal            TEXT,
  status          TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  progress_total  INTEGER NOT NULL,
  progress_live   INTEGER NOT NULL,
  progress_paused INTEGER NOT NULL,
  progress_draft  INTEGER NOT NULL,
  progress_ended  INTEGER NOT NULL,
  synced_at       TEXT NOT NULL,
  raw_json        TEXT NOT NULL,
  PRIMARY KEY (store_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE custom_audiences (
  store_id   TEXT NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id         TEXT NOT NULL,
  name       TEXT NOT NULL,
  rules_json TEXT NOT NULL,
  synced_at  TEXT NOT NULL,
  raw_json   TEXT NOT NULL,
  PRIMARY KEY (store_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE sync_state (
  store_id   TEXT PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
  run_id     TEXT NOT NULL,
  phase      TEXT NOT NULL,
  next_page  INTEGER,
  started_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE resource_syncs (
  store_id  TEXT NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  resource  TEXT NOT NULL,
  synced_at TEXT NOT NULL,
  PRIMARY KEY (store_id, resource)
) STRICT, WITHOUT ROWID;
`;

/**
 * v2: records set aside by a sync, substring search over tests, and the indexes the
 * test list walks in sort order (each ends with the (store_id, id) tiebreak).
 */
const V2_SET_ASIDE_AND_SEARCH = `
-- record_id is '' when the bad record had no usable id; run_id is the sync run that saw it.
CREATE TABLE set_aside (
  store_id  TEXT NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  resource  TEXT NOT NULL,
  record_id TEXT NOT NULL DEFAULT '',
  error     TEXT NOT NULL,
  seen_at   TEXT NOT NULL,
  run_id    TEXT,
  raw_json  TEXT NOT NULL,
  PRIMARY KEY (store_id, resource, record_id)
) STRICT, WITHOUT ROWID;

-- Trigram tokens find any substring of three or more characters ("ship" in "Free shipping bar").
CREATE VIRTUAL TABLE tests_fts USING fts5 (
  title, hypothesis, handle,
  content = 'tests', content_rowid = 'seq',
  tokenize = 'trigram remove_diacritics 1'
);
-- Triggers keep the index true for every write, including deletes cascaded from a store.
CREATE TRIGGER tests_fts_after_insert AFTER INSERT ON tests BEGIN
  INSERT INTO tests_fts (rowid, title, hypothesis, handle) VALUES (new.seq, new.title, new.hypothesis, new.handle);
END;
CREATE TRIGGER tests_fts_after_delete AFTER DELETE ON tests BEGIN
  INSERT INTO tests_fts (tests_fts, rowid, title, hypothesis, handle)
    VALUES ('delete', old.seq, old.title, old.hypothesis, old.handle);
END;
CREATE TRIGGER tests_fts_after_update AFTER UPDATE OF title, hypothesis, handle ON tests
WHEN old.title IS NOT new.title OR old.hypothesis IS NOT new.hypothesis OR old.handle IS NOT new.handle
BEGIN
  INSERT INTO tests_fts (tests_fts, rowid, title, hypothesis, handle)
    VALUES ('delete', old.seq, old.title, old.hypothesis, old.handle);
  INSERT INTO tests_fts (rowid, title, hypothesis, handle) VALUES (new.seq, new.title, new.hypothesis, new.handle);
END;
-- Tests cached by v1 become searchable.
INSERT INTO tests_fts (tests_fts) VALUES ('rebuild');

CREATE INDEX tests_by_title ON tests (title COLLATE NOCASE, store_id, id);
CREATE INDEX tests_by_status ON tests (status, store_id, id);
CREATE INDEX tests_by_goal ON tests (goal, store_id, id);
CREATE INDEX tests_by_start ON tests (start_at, store_id, id);
CREATE INDEX tests_by_end ON tests (end_at, store_id, id);
CREATE INDEX tests_by_updated ON tests (updated_at, store_id, id);
CREATE INDEX tests_by_probability ON tests (probability_to_win, store_id, id);
CREATE INDEX tests_by_lift ON tests (lift, store_id, id);
CREATE INDEX tests_by_campaign ON tests (campaign_id);
-- Covers the status chips' counts and a store's counts, for one store or all.
CREATE INDEX tests_by_removed ON tests (removed, store_id, status);
CREATE INDEX test_tags_by_name ON test_tags (name COLLATE NOCASE, store_id, test_id);
CREATE INDEX test_tags_by_tag ON test_tags (store_id, tag_id);
`;

/** v3: the lifecycle tier on the test row, so the list can say whether a lift is significant. */
const V3_TIER_ON_TESTS = `
ALTER TABLE tests ADD COLUMN tier TEXT;
UPDATE tests SET tier = (
  SELECT r.tier FROM results r WHERE r.store_id = tests.store_id AND r.test_id = tests.id
);
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, up: (db) => db.exec(V1_CORE) },
  { version: 2, up: (db) => db.exec(V2_SET_ASIDE_AND_SEARCH) },
  { version: 3, up: (db) => db.exec(V3_TIER_ON_TESTS) },
];

export function schemaVersion(db: Db): number {
  const version = db.pragma('user_version', { simple: true });
  return typeof version === 'number' ? version : 0;
}

/**
 * Brings the schema up to the newest of `migrations`, all pending steps in one
 * transaction (a failing step leaves the file as it was). Refuses a cache written
 * by a newer Splitbook rather than guess at a schema it does not know. The version is
 * read inside the (immediate) transaction, so two processes opening one file at once
 * cannot both migrate it.
 */
export function migrate(
  db: Db,
  migrations: readonly Migration[] = MIGRATIONS,
): { from: number; to: number } {
  assertOrdered(migrations);
  const newest = migrations.at(-1)?.version ?? 0;
  return db
    .transaction(() => {
      const from = schemaVersion(db);
      if (from > newest) throw newerCache(db.name, from, newest);
      const pending = migrations.filter((m) => m.version > from);
      if (pending.length === 0) return { from, to: from };
      for (const migration of pending) migration.up(db);
      db.pragma(`user_version = ${newest}`);
      return { from, to: newest };
    })
    .immediate();
}

function newerCache(file: string, version: number, newest: number) {
  return problem(
    'internal',
    409,
    'Cache from a newer Splitbook',
    `This cache was written by a newer version of Splitbook (schema ${version}, this version knows up to ${newest}). ` +
      `Update Splitbook, or move ${file} aside to start a fresh cache.`,
  );
}

function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (!Number.isInteger(m.version) || m.version !== i + 1) {
      throw new Error(
        `Migration ${i} has version ${m.version}; versions must be 1, 2, 3… in order`,
      );
    }
  });
}
