// Answers that depend only on the cache's contents (a filter's count, the facets), kept until the data changes.
import { statement } from '../statements';
import type { Db } from '../types';

/** Distinct queries kept per version; a cursor walk or a chip click repeats a handful. */
const MAX_ENTRIES = 64;

const memos = new WeakMap<Db, { version: string; values: Map<string, unknown> }>();

/**
 * The cache's version as seen by this connection: `data_version` moves when another connection (the
 * CLI, another window) commits, `total_changes()` when this one writes. Either moving drops every memo.
 */
function dataVersion(db: Db): string {
  // Cached statements: db.pragma would prepare anew at every read.
  const dataVersion = statement<{ data_version: number }>(db, 'PRAGMA data_version').get()
    ?.data_version;
  const own = statement<{ n: number }>(db, 'SELECT total_changes() AS n').get()?.n ?? 0;
  return `${String(dataVersion)}:${own}`;
}

/** `compute()` once per key and version of the data; again as soon as anything was written. */
export function memoized<T>(db: Db, key: string, compute: () => T): T {
  const version = dataVersion(db);
  let memo = memos.get(db);
  if (!memo || memo.version !== version) {
    memo = { version, values: new Map() };
    memos.set(db, memo);
  }
  if (memo.values.has(key)) return memo.values.get(key) as T;
  const value = compute();
  if (memo.values.size >= MAX_ENTRIES) memo.values.clear();
  memo.values.set(key, value);
  return value;
}
