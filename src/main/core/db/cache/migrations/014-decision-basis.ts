// Migration 14: a call's basis line and decision date on the test's row. Frozen once released.
import type { Migration } from './migration';

/**
 * The Decisions view shows every call's basis (the one line of figures and settings it used) and its
 * decision date; read from `tests_decision`'s JSON they cost more than the rest of the view's read at
 * 20 stores. Written with the call (db/decisions.ts storeDecision), filled here from the calls kept.
 */
const SQL = `
ALTER TABLE tests ADD COLUMN decision_basis TEXT;
ALTER TABLE tests ADD COLUMN decision_date TEXT;
UPDATE tests SET
  decision_basis = (SELECT json_extract(d.decision_json, '$.basis') FROM tests_decision d WHERE d.seq = tests.seq),
  decision_date = (SELECT json_extract(d.decision_json, '$.decisionDate') FROM tests_decision d WHERE d.seq = tests.seq)
WHERE decision IS NOT NULL;
`;

export const migration014: Migration = { version: 14, up: (db) => db.exec(SQL) };
