// Who has a data folder open: every core holds a shared lock on one small file for its life, and a restore
// takes it exclusively, so files are swapped only while no other Splitbook process (or core) has them
// open. SQLite's own file lock (db/file-lock), as the store locks use: the OS drops it when its process
// dies, so a killed process never blocks a restore and no PID is guessed at.
import type Database from 'better-sqlite3';
import { problem } from '#shared/problem';
import { isBusy, openLockFile, takeLock, type FileHold } from '../db/file-lock';

export type FolderHold = FileHold;

/** The lock file: never written to, only locked (it stays 0 bytes). */
export const FOLDER_LOCK_FILE = 'folder.lock.sqlite';

/** How long a starting core waits for a restore under way before saying so. */
const RESTORE_WAIT_MS = 15_000;

/**
 * The shared hold of an open core: a read transaction kept open. Waits for a restore under way and
 * refuses when it does not end; a folder where the lock cannot be made at all (read-only) is not held.
 */
export function holdFolder(dataDir: string): FolderHold {
  let db: Database.Database;
  try {
    db = openLockFile(dataDir, FOLDER_LOCK_FILE, RESTORE_WAIT_MS);
  } catch {
    return { release: () => undefined };
  }
  try {
    return takeLock(db, 'shared');
  } catch (error) {
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
  const db = openLockFile(dataDir, FOLDER_LOCK_FILE, 0);
  try {
    return takeLock(db, 'exclusive');
  } catch (error) {
    if (isBusy(error)) return null;
    throw error;
  }
}
