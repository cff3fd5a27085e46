// Locks held as SQLite's own file locks on small files under the data folder's locks/ directory: the OS
// grants each to its holders and drops it when their process dies, so a killed holder never blocks and no
// PID is guessed at. The store locks (sync) and the folder lock (backup) are both made of this.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export type FileHold = { release(): void };

/** The folder under the data folder that holds the lock files. */
export const LOCKS_DIR = 'locks';

/** How a lock is taken: a shared read hold, a write lock (one holder), or exclusive (no other holder). */
export type LockMode = 'shared' | 'immediate' | 'exclusive';

/** True when SQLite refused because another connection holds the lock. */
export function isBusy(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError &&
    (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED')
  );
}

/** Opens the lock file `name` under `dataDir`/locks (made if missing); `timeout` is SQLite's busy wait. */
export function openLockFile(dataDir: string, name: string, timeout: number): Database.Database {
  mkdirSync(join(dataDir, LOCKS_DIR), { recursive: true });
  return new Database(join(dataDir, LOCKS_DIR, name), { timeout });
}

/**
 * Takes the lock on an open lock file, or throws SQLite's error (busy when another holds it); on a throw
 * the connection is closed. A shared hold is a read transaction kept open.
 */
export function takeLock(db: Database.Database, mode: LockMode): FileHold {
  try {
    if (mode === 'shared') {
      db.exec('BEGIN');
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } else {
      db.exec(mode === 'immediate' ? 'BEGIN IMMEDIATE' : 'BEGIN EXCLUSIVE');
    }
  } catch (error) {
    db.close();
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
}
