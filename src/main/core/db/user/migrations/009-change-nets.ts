// User-data migration 9: the Changes view's net changes kept per test and field, and each test's first
// probability beside the window's other ends. Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * The Changes view nets each field's changes over a window: the value before its first change in the
 * window, after its last, and when that was. Walking every snapshot of every test for it took most
 * of the view's time at 20 stores; these rows hold the answer (db/history/review.ts keeps them true on
 * every snapshot written, review mark and forgotten store; thinning takes drift snapshots only, which
 * have none). One row per store, test and field that a snapshot with more than drift in it changed
 * (drift fields left out; per-goal tiers kept, the view skips them but orders tests by them), values
 * as JSON text:
 * first_*: its first change (by time, then id): the window's start when it opens before it;
 * last_*: its last change: the window's end;
 * mark_*: its first change after the store's reviewed_at (null: none), the view's usual window.
 * test_state.first_at / first_probability: the test's first snapshot, its probability where a window
 * opens before it; the ends are read through an index of their own, the state rows being wide.
 */
const SQL = `
CREATE TABLE user.change_nets (
  store_id   TEXT NOT NULL,
  test_id    TEXT NOT NULL,
  field      TEXT NOT NULL,
  first_at   TEXT NOT NULL,
  first_id   INTEGER NOT NULL,
  first_from TEXT NOT NULL,
  last_at    TEXT NOT NULL,
  last_id    INTEGER NOT NULL,
  last_to    TEXT NOT NULL,
  mark_at    TEXT,
  mark_id    INTEGER,
  mark_from  TEXT,
  PRIMARY KEY (store_id, test_id, field)
) STRICT, WITHOUT ROWID;

INSERT INTO user.change_nets
  (store_id, test_id, field, first_at, first_id, first_from, last_at, last_id, last_to)
SELECT store_id, test_id, field,
       first_value(at) OVER w, first_value(id) OVER w, first_value(from_json) OVER w,
       last_value(at) OVER w, last_value(id) OVER w, last_value(to_json) OVER w
FROM (
  SELECT x.store_id, x.test_id, j.key AS field, x.at, x.id, j.value -> 0 AS from_json, j.value -> 1 AS to_json
  FROM user.test_snapshots x, json_each(x.changes) j
  WHERE x.drift = 0 AND x.baseline = 0 AND json_valid(x.changes) AND json_type(x.changes) = 'object'
    AND j.key NOT IN ('visitorsControl', 'visitorsVariant', 'lift', 'probabilityToWin')
)
WINDOW w AS (PARTITION BY store_id, test_id, field ORDER BY at, id
             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
ON CONFLICT DO NOTHING;

UPDATE user.change_nets AS n SET (mark_at, mark_id, mark_from) = (
  SELECT x.at, x.id, j.value -> 0
  FROM user.test_snapshots x, json_each(x.changes) j
  WHERE x.store_id = n.store_id AND x.test_id = n.test_id AND x.drift = 0 AND x.baseline = 0
    AND json_valid(x.changes) AND json_type(x.changes) = 'object' AND j.key = n.field
    AND x.at > coalesce((SELECT m.reviewed_at FROM user.store_marks m WHERE m.store_id = n.store_id), '')
  ORDER BY x.at, x.id LIMIT 1);

ALTER TABLE user.test_state ADD COLUMN first_at TEXT;
ALTER TABLE user.test_state ADD COLUMN first_probability REAL;
UPDATE user.test_state AS s SET (first_at, first_probability) = (
  SELECT x.at, x.probability_to_win FROM user.test_snapshots x
  WHERE x.store_id = s.store_id AND x.test_id = s.test_id ORDER BY x.at, x.id LIMIT 1);
CREATE INDEX user.test_state_ends ON test_state
  (store_id, test_id, last_at, last_probability, first_at, first_probability, mark_probability);
`;

export const userMigration009: Migration = { version: 9, up: (db) => db.exec(SQL) };
