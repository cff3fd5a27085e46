// Migration 1: stores and everything a sync writes. Frozen: a released migration is never edited.
import type { Migration } from './migration';

/**
 * v1: stores and everything a sync writes. Every row is keyed by its store; a test's
 * parts hang off the test and results' parts off the results, so deleting a store
 * cascades through all of it. STRICT tables refuse a value of the wrong type.
 */
const SQL = `
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

export const migration001: Migration = { version: 1, up: (db) => db.exec(SQL) };
