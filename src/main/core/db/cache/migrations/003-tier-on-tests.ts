// Migration 3: the lifecycle tier copied onto test rows. Frozen: a released migration is never edited.
import type { Migration } from './migration';

/** v3: the lifecycle tier on the test row, so the list can say whether a lift is significant. */
const SQL = `
ALTER TABLE tests ADD COLUMN tier TEXT;
UPDATE tests SET tier = (
  SELECT r.tier FROM results r WHERE r.store_id = tests.store_id AND r.test_id = tests.id
);
`;

export const migration003: Migration = { version: 3, up: (db) => db.exec(SQL) };
