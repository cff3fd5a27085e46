// Migration 16: the Decisions view's lines read from one covering index. Frozen once released.
import type { Migration } from './migration';

/**
 * `decisions.lines` (db/cache/decisions.ts decisionLines) reads every call of a scope: at 20 stores ×
 * 500 tests about 7,000 rows. Read from the table, each row is found through `tests_by_removed` and
 * its ~900-byte record decoded for a few columns. This partial index holds exactly the calls the view
 * lists (decided, not removed), keyed by store, with every column a line draws, so the read walks the
 * index alone (bench decisions-view: about a third less time). Kept by SQLite on every call written.
 */
const SQL = `
CREATE INDEX tests_decision_lines ON tests
  (store_id, decision, id, title, decision_words, decision_reason, days_to_decision, decision_date,
   goal_lift)
  WHERE decision IS NOT NULL AND removed = 0;
`;

export const migration016: Migration = { version: 16, up: (db) => db.exec(SQL) };
