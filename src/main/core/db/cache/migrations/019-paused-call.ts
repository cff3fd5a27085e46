// Migration 19: the call "paused" sorts last in the test list's Call column. Frozen once released.
import type { Migration } from './migration';

/**
 * A paused or suspended test gets its own call (no call until it resumes) instead of "keep running"
 * with a date already past. The test list sorts calls in CALL_ORDER through the index's expression,
 * which must be repeated verbatim in the query (db/cache/test-list.ts), so the index is made again with
 * the new call last.
 */
const SQL = `
DROP INDEX tests_by_decision;
CREATE INDEX tests_by_decision ON tests ((CASE decision WHEN 'ship' THEN 1 WHEN 'keep_control' THEN 2 WHEN 'check_data' THEN 3 WHEN 'no_difference' THEN 4 WHEN 'cannot_conclude' THEN 5 WHEN 'keep_running' THEN 6 WHEN 'paused' THEN 7 END), store_id);
`;

export const migration019: Migration = { version: 19, up: (db) => db.exec(SQL) };
