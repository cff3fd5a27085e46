// User-data migration 4: the user's decision settings per store and each test's own planned length. Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * The global decision settings are the `decisions` row of user.settings (migration 3); these are the
 * choices made per store and per test, which no server can give back.
 * decision_overrides: a store's own values of some decision settings (a JSON object of the keys it
 * overrides); a key left out takes the global value.
 * test_plans: a test's own planned length. `data_through` is the last day of data the test had when the
 * plan was set, and `previous_days` the planned length in effect before: a plan set (or cleared, NULL
 * planned_days) once the test had data is a plan change after launch, which the call must account for.
 */
const SQL = `
CREATE TABLE user.decision_overrides (
  store_id   TEXT PRIMARY KEY,
  overrides  TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE user.test_plans (
  store_id      TEXT NOT NULL,
  test_id       TEXT NOT NULL,
  planned_days  INTEGER,
  set_at        TEXT NOT NULL,
  data_through  TEXT,
  previous_days INTEGER,
  PRIMARY KEY (store_id, test_id)
) STRICT, WITHOUT ROWID;
`;

export const userMigration004: Migration = { version: 4, up: (db) => db.exec(SQL) };
