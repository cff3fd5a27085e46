// User-data migration 7: the edits Splitbook sent and the store confirmed, by field. Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * sent_edits: for each field of a test an edit of Splitbook's changed, the value the store confirmed,
 * in the review memory's terms (its field names and values, see core/review/state.ts), and when. The
 * Changes view tells the user's own edits from changes made elsewhere with it; rows older than a
 * year are dropped as new ones come (no review window reaches that far back in practice).
 */
const SQL = `
CREATE TABLE user.sent_edits (
  id         INTEGER PRIMARY KEY,
  store_id   TEXT NOT NULL,
  test_id    TEXT NOT NULL,
  field      TEXT NOT NULL,
  value_json TEXT NOT NULL,
  sent_at    TEXT NOT NULL
) STRICT;
CREATE INDEX user.sent_edits_by_store ON sent_edits (store_id, sent_at);
`;

export const userMigration007: Migration = { version: 7, up: (db) => db.exec(SQL) };
