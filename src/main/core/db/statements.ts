// Prepared statements cached per connection and SQL text, so hot paths never re-prepare per row or per call.
import type Database from 'better-sqlite3';
import type { Db } from './types';

type AnyStatement = Database.Statement<unknown[], unknown>;

/** The list query has a bounded number of shapes; the cap only guards against a runaway caller. */
const MAX_CACHED = 500;

const cache = new WeakMap<Db, Map<string, AnyStatement>>();

/** The statement for `sql` on `db`, prepared once. `Row` is the shape of a result row. */
export function statement<Row = unknown>(db: Db, sql: string): Database.Statement<unknown[], Row> {
  let statements = cache.get(db);
  if (!statements) {
    statements = new Map();
    cache.set(db, statements);
  }
  let prepared = statements.get(sql);
  if (!prepared) {
    if (statements.size >= MAX_CACHED) statements.clear();
    prepared = db.prepare<unknown[], unknown>(sql);
    statements.set(sql, prepared);
  }
  // The cache is keyed by SQL text, so the row type is the caller's, as with db.prepare<Row>.
  return prepared as Database.Statement<unknown[], Row>;
}
