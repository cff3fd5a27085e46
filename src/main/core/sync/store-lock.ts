// A per-store lock, so two processes on one data folder (the app and a scheduled CLI) never sync the
// same store at once. It is SQLite's own write lock on a small per-store file, taken with
// BEGIN IMMEDIATE and held for the sync: the operating system grants it to exactly one connection
// and drops it when its process dies, so a killed holder never blocks and no PID is ever guessed at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type StoreLocks = (storeId: string) => { release(): void } | null;

export const LOCKS_DIR = 'locks';

/** The lock file of a store: never written to, only locked (it stays 0 bytes). */
export function lockFile(dataDir: string, storeId: string): string {
  return join(dataDir, LOCKS_DIR, `${storeId.replace(/[^A-Za-z0-9_-]/g, '_')}.lock.sqlite`);
}

/**
 * Takes a store's lock, or returns null when another connection (another process, or another
 * sync in this one) holds it. Throws when the lock cannot be taken at all (a read-only or full
 * disk); the sync turns that into its report.
 */
export function createStoreLocks(dataDir: string): StoreLocks {
  return (storeId) => {
    mkdirSync(join(dataDir, LOCKS_DIR), { recursive: true });
    // timeout 0: a held lock is an answer ("someone else is syncing"), not something to wait for.
    const db = new Database(lockFile(dataDir, storeId), { timeout: 0 });
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      db.close();
      if (isBusy(error)) return null;
      throw error;
    }
    let held = true;
    return {
      release() {
        if (!held) return;
        held = false;
        try {
          db.exec('ROLLBACK');
        } finally {
          db.close();
        }
      },
    };
  };
}

function isBusy(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError &&
    (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED')
  );
}
