// A per-store lock, so two processes on one data folder (the app and a scheduled CLI) never sync the
// same store at once. It is SQLite's own write lock on a small per-store file (db/file-lock), taken with
// BEGIN IMMEDIATE and held for the sync: the operating system grants it to exactly one connection
// and drops it when its process dies, so a killed holder never blocks and no PID is ever guessed at.
import { join } from 'node:path';
import { isBusy, LOCKS_DIR, openLockFile, takeLock } from '../db/file-lock';

export type StoreLocks = (storeId: string) => { release(): void } | null;

function lockName(storeId: string): string {
  return `${storeId.replace(/[^A-Za-z0-9_-]/g, '_')}.lock.sqlite`;
}

/** The lock file of a store: never written to, only locked (it stays 0 bytes). */
export function lockFile(dataDir: string, storeId: string): string {
  return join(dataDir, LOCKS_DIR, lockName(storeId));
}

/**
 * Takes a store's lock, or returns null when another connection (another process, or another
 * sync in this one) holds it. Throws when the lock cannot be taken at all (a read-only or full
 * disk); the sync turns that into its report.
 */
export function createStoreLocks(dataDir: string): StoreLocks {
  return (storeId) => {
    // timeout 0: a held lock is an answer ("someone else is syncing"), not something to wait for.
    const db = openLockFile(dataDir, lockName(storeId), 0);
    try {
      return takeLock(db, 'immediate');
    } catch (error) {
      if (isBusy(error)) return null;
      throw error;
    }
  };
}
