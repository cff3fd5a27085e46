// Typed SQL: each statement declared once, in its table's module, with the names and types of its
// parameters and the shape of its rows, and run through the connection's cache of prepared statements.
// Parameters are named (@storeId) and bound from one object, so a call reads as its SQL does and no
// list of twenty positional values can shift by one.
//
//   const TEST_TITLE = read<{ title: string }, { storeId: string; testId: string }>(
//     `SELECT title FROM tests WHERE store_id = @storeId AND id = @testId`,
//   );
//   TEST_TITLE.get(db, { storeId, testId })?.title;
//
// Why not a query builder (Kysely, Drizzle): Splitbook's SQL is hand-tuned for SQLite (covering and
// partial indexes named in INDEXED BY, expression indexes repeated verbatim, window functions, JSON
// functions), better-sqlite3 is synchronous while Kysely's API is asynchronous, and a statement written
// as SQL is what the query plans in the tests check. What a builder would add, the types, this adds.
import type Database from 'better-sqlite3';
import { statement } from './statements';
import type { Db } from './types';

/** A value SQLite binds (better-sqlite3 takes nothing else: no booleans, no undefined). */
export type SqlValue = string | number | bigint | Uint8Array | null;

/** A statement's named parameters. */
export type SqlParams = { readonly [name: string]: SqlValue };

/** A statement without parameters. */
export type NoParams = Record<never, never>;

/** The arguments after the connection: none for a statement without parameters, else its object. */
type Args<P extends SqlParams> = [keyof P] extends [never] ? [] : [params: P];

/** A statement that returns rows of type R. */
export interface Read<R, P extends SqlParams = NoParams> {
  readonly sql: string;
  all(db: Db, ...params: Args<P>): R[];
  get(db: Db, ...params: Args<P>): R | undefined;
  iterate(db: Db, ...params: Args<P>): IterableIterator<R>;
}

/** A statement that changes rows. */
export interface Write<P extends SqlParams = NoParams> {
  readonly sql: string;
  run(db: Db, ...params: Args<P>): Database.RunResult;
}

function bound<P extends SqlParams>(params: readonly [] | readonly [P]): unknown[] {
  return params.length === 0 ? [] : [params[0]];
}

/** A reading statement: its rows are R, its parameters P (named in the SQL as @name). */
export function read<R, P extends SqlParams = NoParams>(sql: string): Read<R, P> {
  return {
    sql,
    all: (db, ...params) => statement<R>(db, sql).all(...bound(params)),
    get: (db, ...params) => statement<R>(db, sql).get(...bound(params)),
    iterate: (db, ...params) => statement<R>(db, sql).iterate(...bound(params)),
  };
}

/** A writing statement (INSERT, UPDATE, DELETE), its parameters P (named in the SQL as @name). */
export function write<P extends SqlParams = NoParams>(sql: string): Write<P> {
  return { sql, run: (db, ...params) => statement(db, sql).run(...bound(params)) };
}
