// User-data migration 11: the history of the decision settings (global and per store). Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * A change of the decision settings once a test has data changes the plan its error budget was spent
 * by: the looks before the change keep the settings they were made with, and the looks after it get
 * an always-valid check on the budget left (shared/domain/decisions/looks.ts). So every change is kept:
 * `store_id` NULL for the global settings, else the store whose overrides changed; `effective_from` the
 * first day ('YYYY-MM-DD', UTC) judged with the new values; `before` the JSON the scope held before
 * (the global settings whole, or the store's overrides).
 */
const SQL = `
CREATE TABLE user.decision_history (
  id             INTEGER PRIMARY KEY,
  store_id       TEXT,
  effective_from TEXT NOT NULL,
  before         TEXT NOT NULL,
  changed_at     TEXT NOT NULL
) STRICT;
CREATE INDEX user.decision_history_by_store ON decision_history (store_id, id);
`;

export const userMigration011: Migration = { version: 11, up: (db) => db.exec(SQL) };
