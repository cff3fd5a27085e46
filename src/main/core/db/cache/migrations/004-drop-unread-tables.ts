// Migration 4: drops six tables every sync wrote and nothing read. Frozen: a released migration is never edited.
import type { Migration } from './migration';

/**
 * v4: a test's sides and default audiences, and the per-side, per-segment, daily and lifecycle rows
 * of results, were copies of what the raw JSON of the test and of its results already holds. Every
 * reader (test detail, results view, statistics, exports) parses that raw record instead, which is
 * one read of one row; the copies only cost writes and disk. Children before parents.
 */
const SQL = `
DROP TABLE test_default_audiences;
DROP TABLE default_audiences;
DROP TABLE test_sides;
DROP TABLE result_daily;
DROP TABLE result_sides;
DROP TABLE result_lifecycles;
`;

export const migration004: Migration = { version: 4, up: (db) => db.exec(SQL) };
