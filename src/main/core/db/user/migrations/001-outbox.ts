// User-data migration 1: the outbox of unsent edits and creates, the server's copy of each record they
// change, and what the store taught Splitbook about its key (read-only). Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * outbox: one row per edit the user made (appended, never merged on write, so one can be undone);
 * the pusher collapses the rows of one record into one request. base_json holds the server's values
 * of the fields the edit changes, as last synced when it was made; base_updated_at the test's
 * updatedAt then (null for campaigns, which have none, and for creates).
 * server_copies: the server's record under the pending edits, refreshed by every pull (the rebase):
 * the local copy in the cache is always this plus the pending edits, so the cache can be rebuilt.
 */
const SQL = `
CREATE TABLE user.outbox (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  store_id        TEXT NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('test', 'campaign', 'tag', 'audience')),
  record_id       TEXT NOT NULL,
  changes_json    TEXT NOT NULL,
  base_json       TEXT NOT NULL,
  base_updated_at TEXT,
  state           TEXT NOT NULL DEFAULT 'queued'
                  CHECK (state IN ('queued', 'sending', 'waiting', 'failed', 'conflict')),
  attempted_at    TEXT,
  force_send      INTEGER NOT NULL DEFAULT 0 CHECK (force_send IN (0, 1)),
  note            TEXT,
  problem_json    TEXT,
  conflict_json   TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
) STRICT;
CREATE INDEX user.outbox_by_record ON outbox (store_id, kind, record_id);

CREATE TABLE user.server_copies (
  store_id  TEXT NOT NULL,
  kind      TEXT NOT NULL CHECK (kind IN ('test', 'campaign')),
  record_id TEXT NOT NULL,
  raw_json  TEXT NOT NULL,
  PRIMARY KEY (store_id, kind, record_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE user.store_keys (
  store_id         TEXT PRIMARY KEY,
  read_only_reason TEXT,
  read_only_at     TEXT
) STRICT;
`;

export const userMigration001: Migration = { version: 1, up: (db) => db.exec(SQL) };
