// Migration 17: each store's test titles by id, read from one covering index. Frozen once released.
import type { Migration } from './migration';

/**
 * The Changes view names every test it lists (db/history/review.ts testTitles): at 20 stores × 500
 * tests, 10,000 titles. Found through the primary key's index, each title cost a lookup of its
 * ~900-byte row; this index holds (store, id, title), so a store's titles are one walk of it (bench
 * review: 16 ms → 4 ms for the 20 stores). Only a test whose row is written again touches it.
 */
const SQL = `CREATE INDEX tests_titles ON tests (store_id, id, title);`;

export const migration017: Migration = { version: 17, up: (db) => db.exec(SQL) };
