// Migration 10: the lifecycle's leading side copied onto test rows. Frozen once released.
import type { Migration } from './migration';

/**
 * v6: the leading side of the test's lifecycle on the test row, beside its tier (v3), so the list can
 * colour a lift only when the side it favours has won, without a lookup per row.
 */
const SQL = `
ALTER TABLE tests ADD COLUMN leader TEXT;
UPDATE tests SET leader = (
  SELECT r.leading_variant FROM results r WHERE r.store_id = tests.store_id AND r.test_id = tests.id
);
`;

export const migration010: Migration = { version: 10, up: (db) => db.exec(SQL) };
