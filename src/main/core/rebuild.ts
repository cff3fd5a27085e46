// Rebuilding a damaged cache: the file (with its WAL) is moved aside, and a fresh cache is opened with the
// user's own file attached as before; its stores are the user file's list, as at every start.
import { existsSync, renameSync } from 'node:fs';
import Database from 'better-sqlite3';
import { copyStoreList, listStoreRows } from './db/cache/stores';
import { openDatabase } from './db/open';
import type { Db, StoreRow } from './db/types';
import { adoptListedStore, hasStoreList, listedStores } from './db/user/stores';

/** Store rows from a cache that may be damaged: whatever can be read, nothing when nothing can. */
export function salvageStores(current: Db | null, file: string): StoreRow[] {
  const fromCurrent = tryRead(() => (current ? listStoreRows(current) : []));
  if (fromCurrent.length > 0) return fromCurrent;
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const opened = db;
    return tryRead(() => listStoreRows(opened));
  } catch {
    return [];
  } finally {
    db?.close();
  }
}

function tryRead(read: () => StoreRow[]): StoreRow[] {
  try {
    return read();
  } catch {
    return [];
  }
}

/**
 * Takes a damaged cache's stores into the user's list when that list is empty: a user file first migrated
 * beside a cache too damaged to open took no list from it. A list that has stores is the user's and is
 * never added to (a store removed since would come back).
 */
export function adoptSalvagedStores(db: Db, salvaged: readonly StoreRow[]): void {
  if (!hasStoreList(db) || listedStores(db).length > 0 || salvaged.length === 0) return;
  db.transaction(() => {
    for (const store of salvaged) adoptListedStore(db, store);
  }).immediate();
}

/**
 * Moves `file` and its -wal/-shm aside (kept as `<file>.damaged-<time>` for inspection) and opens a new
 * cache there with the user's file attached; its stores are the user's list (their sync state starts
 * afresh), with `salvaged` taken in when that list is empty. Returns the new connection.
 */
export function replaceCache(
  file: string,
  userDataFile: string,
  salvaged: readonly StoreRow[],
  now: Date,
): Db {
  const suffix = `.damaged-${now.toISOString().replace(/[:.]/g, '-')}`;
  for (const part of ['', '-wal', '-shm']) {
    if (existsSync(file + part)) renameSync(file + part, `${file}${suffix}${part}`);
  }
  const db = openDatabase(file, { userDataFile });
  adoptSalvagedStores(db, salvaged);
  copyStoreList(db);
  return db;
}
