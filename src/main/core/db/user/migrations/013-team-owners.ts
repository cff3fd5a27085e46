// User-data migration 13: a copy of each shared test's owner, so the test list's "Mine" filter is SQL, and when this member last saw each test's comments. Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * `team_owners`: the owner the team layer holds for a test of a shared store (the layer, in
 * `team_updates`, stays the truth; this copy follows every change to it and is filled again from
 * it whenever a document is read, so it never outlives what the layer says). `team_comments_seen`:
 * when this desktop last showed a test's comments (the badge counts the others' comments since).
 */
const SQL = `
CREATE TABLE user.team_owners (
  store_id TEXT NOT NULL,
  test_id  TEXT NOT NULL,
  owner    TEXT NOT NULL,
  PRIMARY KEY (store_id, test_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE user.team_comments_seen (
  store_id TEXT NOT NULL,
  test_id  TEXT NOT NULL,
  seen_at  TEXT NOT NULL,
  PRIMARY KEY (store_id, test_id)
) STRICT, WITHOUT ROWID;
`;

export const userMigration013: Migration = { version: 13, up: (db) => db.exec(SQL) };
