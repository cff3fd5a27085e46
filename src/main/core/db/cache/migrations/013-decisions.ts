// Migration 13: each test's decision on its goal on its row, and the rate readings its results fit. Frozen once released.
import type { Migration } from './migration';

/**
 * v10: Splitbook's call on each test's goal (shared/domain/decisions), made when results are written
 * (db/decisions.ts), kept on the row for the list, the Decisions view, the portfolio and the reports:
 * the call (`decision`, a stable value), its words and one-line reason, the days until a call is
 * expected, the goal's lift and chance to win from the totals, `decision_key` (the rules' version, a
 * hash of the settings and the test's own plan it was made with: a call whose key differs from the
 * current one is stale, found in SQL and made again) and `decided_at`. The full call, with every
 * figure it used (1–2 kB), lives beside the row in `tests_decision`, as raw JSON does in `tests_raw`,
 * so scans of tests stay narrow. NULL means "not decided yet": written with the results, and filled
 * for results cached before this version by the refresh at core start (decisions/refresh.ts).
 *
 * `results.rate_fits`: per side, every reading of each rate its counts fit (rate-readings.ts), to
 * learn how a store's rates read without unpacking its results.
 *
 * The list sorts on goal_lift, goal_p_win and the call in the order the Decisions view lists calls
 * (those needing the consultant first, keep running last), each index ending in (store_id) and the
 * rowid like migration 12's. The CASE is repeated verbatim in db/test-list.ts, which a test checks.
 */
const SQL = `
ALTER TABLE tests ADD COLUMN decision TEXT;
ALTER TABLE tests ADD COLUMN decision_words TEXT;
ALTER TABLE tests ADD COLUMN decision_reason TEXT;
ALTER TABLE tests ADD COLUMN days_to_decision INTEGER;
ALTER TABLE tests ADD COLUMN goal_lift REAL;
ALTER TABLE tests ADD COLUMN goal_p_win REAL;
ALTER TABLE tests ADD COLUMN decision_key TEXT;
ALTER TABLE tests ADD COLUMN decided_at TEXT;

CREATE TABLE tests_decision (
  seq           INTEGER PRIMARY KEY REFERENCES tests (seq) ON DELETE CASCADE,
  decision_json TEXT NOT NULL
) STRICT;

ALTER TABLE results ADD COLUMN rate_fits TEXT;

CREATE INDEX tests_by_goal_lift ON tests (goal_lift, store_id);
CREATE INDEX tests_by_goal_p_win ON tests (goal_p_win, store_id);
CREATE INDEX tests_by_decision ON tests ((CASE decision WHEN 'ship' THEN 1 WHEN 'keep_control' THEN 2 WHEN 'check_data' THEN 3 WHEN 'no_difference' THEN 4 WHEN 'cannot_conclude' THEN 5 WHEN 'keep_running' THEN 6 END), store_id);
`;

export const migration013: Migration = { version: 13, up: (db) => db.exec(SQL) };
