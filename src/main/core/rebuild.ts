// Rebuilding a damaged cache: the stores that can still be read are kept, the file (with its WAL)
// is moved aside, and a fresh cache is opened with the user's own file attached as before.
import { existsSync, renameSync } from 'node:fs';
import Database from 'better-sqlite3';
import { insertStore, listStoreRows } from './db/cache/stores';
import { openDatabase } from './db/open';
import type { Db, StoreRow } from './db/types';

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
 * Moves `file` and its -wal/-shm aside (kept as `<file>.damaged-<time>` for inspection), opens a new
 * cache there with the user's file attached, and inserts the salvaged stores (their sync state
 * starts afresh). Returns the new connection.
 */
export function replaceCache(
  file: string,
  userDataFile: string,
  stores: readonly StoreRow[],
  now: Date,
): Db {
  const suffix = `.damaged-${now.toISOString().replace(/[:.]/g, '-')}`;
  for (const part of ['', '-wal', '-shm']) {
    if (existsSync(file + part)) renameSync(file + part, `${file}${suffix}${part}`);
  }
  const db = openDatabase(file, { userDataFile });
  db.transaction(() => {
    for (const store of stores) {
      insertStore(db, {
        id: store.id,
        name: store.name,
        baseUrl: store.baseUrl,
        kind: store.kind,
        keyStorage: store.keyStorage,
        createdAt: store.createdAt,
      });
    }
  }).immediate();
  return db;
}
