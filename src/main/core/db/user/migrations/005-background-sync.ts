// User-data migration 5: where each store's background syncs stand, and the calls a sync changed that the user has not looked at yet. Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * background_sync: a store's own schedule (NULL: the global setting), the failures in a row and when a
 * backed-off store is tried again (drawn once, with jitter, so every process shows the same time), and
 * a refused key, which stops the store's background syncs until its key is changed. Kept in the user's
 * file, beside the settings, so the CLI's `stores` shows what the app will do, and a restart keeps it.
 * decision_news: one row per test whose call a sync changed to one that needs the consultant, since the
 * user last looked at the Decisions view (the view's badge); the row goes when the user looks, or when
 * the call goes back to one that needs nobody.
 */
const SQL = `
CREATE TABLE user.background_sync (
  store_id       TEXT PRIMARY KEY,
  schedule       TEXT,
  failures       INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
  retry_at       TEXT,
  refused_at     TEXT,
  refused_reason TEXT,
  updated_at     TEXT NOT NULL
) STRICT;

CREATE TABLE user.decision_news (
  store_id TEXT NOT NULL,
  test_id  TEXT NOT NULL,
  call     TEXT NOT NULL,
  previous TEXT,
  at       TEXT NOT NULL,
  PRIMARY KEY (store_id, test_id)
) STRICT, WITHOUT ROWID;
`;

export const userMigration005: Migration = { version: 5, up: (db) => db.exec(SQL) };
