// User-data migration 6: the user's one-line takeaway per concluded test. Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * takeaways: what the user learnt from a test, in one line of at most 200 characters, listed with the
 * programme's learnings and exported. Kept like notes, by store and test id, so a rebuilt cache finds
 * them again; no server can give them back.
 */
const SQL = `
CREATE TABLE user.takeaways (
  store_id   TEXT NOT NULL,
  test_id    TEXT NOT NULL,
  text       TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 200),
  updated_at TEXT NOT NULL,
  PRIMARY KEY (store_id, test_id)
) STRICT, WITHOUT ROWID;
`;

export const userMigration006: Migration = { version: 6, up: (db) => db.exec(SQL) };
