// Migration 2: set-aside records, the search index and list indexes. Frozen: a released migration is never edited.
import type { Migration } from './migration';

/**
 * v2: records set aside by a sync, substring search over tests, and the indexes the
 * test list walks in sort order (each ends with the (store_id, id) tiebreak).
 */
const SQL = `
-- record_id is '' when the bad record had no usable id; run_id is the sync run that saw it.
CREATE TABLE set_aside (
  store_id  TEXT NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  resource  TEXT NOT NULL,
  record_id TEXT NOT NULL DEFAULT '',
  error     TEXT NOT NULL,
  seen_at   TEXT NOT NULL,
  run_id    TEXT,
  raw_json  TEXT NOT NULL,
  PRIMARY KEY (store_id, resource, record_id)
) STRICT, WITHOUT ROWID;

-- Trigram tokens find any substring of three or more characters ("ship" in "Free shipping bar").
CREATE VIRTUAL TABLE tests_fts USING fts5 (
  title, hypothesis, handle,
  content = 'tests', content_rowid = 'seq',
  tokenize = 'trigram remove_diacritics 1'
);
-- Triggers keep the index true for every write, including deletes cascaded from a store.
CREATE TRIGGER tests_fts_after_insert AFTER INSERT ON tests BEGIN
  INSERT INTO tests_fts (rowid, title, hypothesis, handle) VALUES (new.seq, new.title, new.hypothesis, new.handle);
END;
CREATE TRIGGER tests_fts_after_delete AFTER DELETE ON tests BEGIN
  INSERT INTO tests_fts (tests_fts, rowid, title, hypothesis, handle)
    VALUES ('delete', old.seq, old.title, old.hypothesis, old.handle);
END;
CREATE TRIGGER tests_fts_after_update AFTER UPDATE OF title, hypothesis, handle ON tests
WHEN old.title IS NOT new.title OR old.hypothesis IS NOT new.hypothesis OR old.handle IS NOT new.handle
BEGIN
  INSERT INTO tests_fts (tests_fts, rowid, title, hypothesis, handle)
    VALUES ('delete', old.seq, old.title, old.hypothesis, old.handle);
  INSERT INTO tests_fts (rowid, title, hypothesis, handle) VALUES (new.seq, new.title, new.hypothesis, new.handle);
END;
-- Tests cached by v1 become searchable.
INSERT INTO tests_fts (tests_fts) VALUES ('rebuild');

CREATE INDEX tests_by_title ON tests (title COLLATE NOCASE, store_id, id);
CREATE INDEX tests_by_status ON tests (status, store_id, id);
CREATE INDEX tests_by_goal ON tests (goal, store_id, id);
CREATE INDEX tests_by_start ON tests (start_at, store_id, id);
CREATE INDEX tests_by_end ON tests (end_at, store_id, id);
CREATE INDEX tests_by_updated ON tests (updated_at, store_id, id);
CREATE INDEX tests_by_probability ON tests (probability_to_win, store_id, id);
CREATE INDEX tests_by_lift ON tests (lift, store_id, id);
CREATE INDEX tests_by_campaign ON tests (campaign_id);
-- Covers the status chips' counts and a store's counts, for one store or all.
CREATE INDEX tests_by_removed ON tests (removed, store_id, status);
CREATE INDEX test_tags_by_name ON test_tags (name COLLATE NOCASE, store_id, test_id);
CREATE INDEX test_tags_by_tag ON test_tags (store_id, tag_id);
`;

export const migration002: Migration = { version: 2, up: (db) => db.exec(SQL) };
