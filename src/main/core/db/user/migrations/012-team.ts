// User-data migration 12: this desktop's copy of the team's shared layer (docs/team.md). Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * `team`: the team joined (one row; the member token is in the OS keychain under `token_account`, never
 * here: an account per data folder, so two folders of one user keep two members), kept after leaving
 * so the copies stay this member's own. `team_links`: which local store is which team store.
 * `team_updates`: each team store's Y.Doc as the Yjs updates it took, in order; `origin` 'local' for
 * this desktop's edits, 'remote' for what the server sent, 'merged' for a compaction's one update.
 * `synced_through` on a link: the last update id the server is known to hold (what is after it and
 * local is waiting to be sent).
 */
const SQL = `
CREATE TABLE user.team (
  id               INTEGER PRIMARY KEY CHECK (id = 1),
  url              TEXT NOT NULL,
  member           TEXT NOT NULL,
  token_account    TEXT NOT NULL,
  joined_at        TEXT NOT NULL,
  left_at          TEXT,
  last_exchange_at TEXT
) STRICT;
CREATE TABLE user.team_links (
  store_id       TEXT PRIMARY KEY,
  team_store_id  TEXT NOT NULL UNIQUE,
  linked_at      TEXT NOT NULL,
  synced_through INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE TABLE user.team_updates (
  id            INTEGER PRIMARY KEY,
  team_store_id TEXT NOT NULL,
  origin        TEXT NOT NULL CHECK (origin IN ('local', 'remote', 'merged')),
  data          BLOB NOT NULL
) STRICT;
CREATE INDEX user.team_updates_by_store ON team_updates (team_store_id, id);
`;

export const userMigration012: Migration = { version: 12, up: (db) => db.exec(SQL) };
