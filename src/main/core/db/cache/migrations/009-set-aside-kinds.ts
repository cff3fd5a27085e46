// Migration 9: what kind of failure set a record aside, and indexes to page Sync issues. Frozen once released.
import type { Migration } from './migration';

/**
 * v5: `kind` says what Splitbook does next with a set-aside record (invalid: waits for the server to
 * send a valid one; transient: retries at the next sync; refused: the server refused the request),
 * `status` the HTTP status of a failed request. The indexes let Sync issues read one page, newest
 * first, of however many rows there are.
 */
const SQL = `
ALTER TABLE set_aside ADD COLUMN kind TEXT NOT NULL DEFAULT 'invalid'
  CHECK (kind IN ('invalid', 'transient', 'refused'));
ALTER TABLE set_aside ADD COLUMN status INTEGER;
UPDATE set_aside SET kind = 'transient' WHERE raw_json = 'null';
CREATE INDEX set_aside_by_seen ON set_aside (seen_at DESC, store_id, resource, record_id);
CREATE INDEX set_aside_by_store_seen ON set_aside (store_id, seen_at DESC, resource, record_id);
`;

export const migration009: Migration = { version: 9, up: (db) => db.exec(SQL) };
