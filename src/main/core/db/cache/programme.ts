// What the programme's views (Learnings, Backlog) read of the cached tests: the tests the list's filter
// keeps with a given call or status, in the store list's order. The SQL is built from the filter, as the
// list's is (test-list.ts), so each read's row is typed here once.
import type { TestFilter } from '#shared/contract/index';
import { statement } from '../statements';
import type { Db } from '../types';
import { add, filterWhere, whereSql } from './test-filter';

/** A concluded test as Learnings reads it: its row's columns and the call kept on it. */
export type ConcludedRow = {
  seq: number;
  storeId: string;
  storeName: string;
  testId: string;
  title: string;
  status: string;
  goal: string;
  call: string;
  words: string | null;
  tagNames: string;
  surfaceArea: string | null;
  implemented: number | null;
};

/** The tests `filter` keeps whose kept call is one of `calls`, in the store list's order. */
export function concludedRows(
  db: Db,
  filter: TestFilter,
  calls: readonly string[],
): ConcludedRow[] {
  const where = filterWhere(filter, true);
  add(where, 't.decision IN (SELECT value FROM json_each(@calls))', {
    calls: JSON.stringify(calls),
  });
  return statement<ConcludedRow>(
    db,
    `SELECT t.seq, t.store_id AS storeId, s.name AS storeName, t.id AS testId, t.title, t.status, t.goal,
            t.decision AS call, t.decision_words AS words, t.tag_names AS tagNames,
            t.surface_area AS surfaceArea, t.implemented
     FROM tests t JOIN stores s ON s.id = t.store_id
     ${whereSql(where)}
     ORDER BY s.position, s.id, t.seq`,
  ).all(where.params);
}

/** An idea as Backlog reads it: its row's columns and its raw record. */
export type BacklogDbRow = {
  storeId: string;
  storeName: string;
  testId: string;
  title: string;
  status: string;
  stage: string;
  goal: string;
  surfaceArea: string | null;
  priority: string | null;
  impact: number | null;
  effort: number | null;
  updatedAt: string;
  tagNames: string;
  rawJson: string;
};

/** The tests `filter` keeps whose status is one of `statuses`, in the store list's order. */
export function backlogRows(
  db: Db,
  filter: TestFilter,
  statuses: readonly string[],
): BacklogDbRow[] {
  const where = filterWhere(filter, true);
  add(where, '+t.status IN (SELECT value FROM json_each(@backlogStatuses))', {
    backlogStatuses: JSON.stringify(statuses),
  });
  return statement<BacklogDbRow>(
    db,
    `SELECT t.store_id AS storeId, s.name AS storeName, t.id AS testId, t.title, t.status, t.stage, t.goal,
            t.surface_area AS surfaceArea, t.priority, t.impact, t.effort, t.updated_at AS updatedAt,
            t.tag_names AS tagNames, raw.raw_json AS rawJson
     FROM tests t JOIN stores s ON s.id = t.store_id JOIN tests_raw raw ON raw.seq = t.seq
     ${whereSql(where)}
     ORDER BY s.position, s.id, t.seq`,
  ).all(where.params);
}
