// Who has a data folder open: every core holds a shared lock on one small file for its life, and a restore
// takes it exclusively, so files are swapped only while no other Splitbook process (or core) has them
// open. SQLite's own file lock, as the store locks use: the OS drops it when its process dies, so a killed
// process never blocks a restore and no PID is guessed at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { problem } from '#shared/problem';
import { LOCKS_DIR } from '../sync/store-lock';

export type FolderHold = { release(): void };

/** The lock file: never written to, only locked (it stays 0 bytes). */
export const FOLDER_LOCK_FILE = 'folder.lock.sqlite';

/** How long a starting core waits for a restore under way before saying so. */
const RESTORE_WAIT_MS = 15_000;

function open(dataDir: string, timeout: number): Database.Database {
  mkdirSync(join(dataDir, LOCKS_DIR), { recursive: true });
  return new Database(join(dataDir, LOCKS_DIR, FOLDER_LOCK_FILE), { timeout });
}

function isBusy(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError &&
    (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED')
  );
}

function holding(db: Database.Database): FolderHold {
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

/**
 * The shared hold of an open core: a read transaction kept open. Waits for a restore under way and
 * refuses when it does not end; a folder where the lock cannot be made at all (read-only) is not held.
 */
export function holdFolder(dataDir: string): FolderHold {
  let db: Database.Database;
  try {
    db = open(dataDir, RESTORE_WAIT_MS);
  } catch {
    return { release: () => undefined };
  }
  try {
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return holding(db);
  } catch (error) {
    db.close();
    if (!isBusy(error)) return { release: () => undefined };
    throw problem(
      'conflict',
      409,
      'A restore is under way',
      `Splitbook is restoring a backup into ${dataDir}. Start it again once the restore has finished.`,
    );
  }
}

/** The folder alone (no core open on it anywhere), or null when another holds it. */
export function takeFolderAlone(dataDir: string): FolderHold | null {
  const db = open(dataDir, 0);
  try {
    db.exec('BEGIN EXCLUSIVE');
    return holding(db);
  } catch (error) {
    db.close();
    if (isBusy(error)) return null;
    throw error;
  }
}
