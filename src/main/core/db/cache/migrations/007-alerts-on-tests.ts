// Migration 7: the data-quality alerts of a test's results on its row. Frozen: a released migration is never edited.
import type { Migration } from './migration';

/**
 * v5: `alerts` (a JSON array of alert codes, e.g. ["sample-ratio-mismatch"]) and `alert_count`, so the
 * list shows an alerts column and filters "has alerts" in SQL. NULL means "not computed yet": written
 * with the results (db/results.ts), and filled for results cached before this version by a one-off
 * backfill at core start (backfillAlerts), since computing them needs code a migration must not freeze.
 */
const SQL = `
ALTER TABLE tests ADD COLUMN alerts TEXT;
ALTER TABLE tests ADD COLUMN alert_count INTEGER;
`;

export const migration007: Migration = { version: 7, up: (db) => db.exec(SQL) };
