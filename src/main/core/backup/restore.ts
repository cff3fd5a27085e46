// Restoring a backup: the new files are made beside the live ones (the user's file built row by row from
// the backup into tables this Splitbook's migrations make, so nothing foreign comes in and every row meets
// their constraints) and opened as the app opens them (an older backup is brought up to date there)
// before anything is replaced; then they are swapped in under a journal (backup/journal.ts), the files
// they replace moved to a folder of their own and kept, and every step undone if one fails.
import { chmodSync, existsSync, mkdirSync, rmdirSync, rmSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { copyStoreList } from '../db/cache/stores';
import { migrate } from '../db/cache/migrations';
import { openDatabase } from '../db/open';
import type { Db } from '../db/types';
import { USER_DATA_MIGRATIONS } from '../db/user/migrations/migrations';
import { adoptListedStore } from '../db/user/stores';
import { digestMismatch, STORE_LIST_VERSION, unfit, type BackupInfo } from './backup-file';
import { checkRows, contentDigest, UnfitBackup, userShape } from './contents';
import {
  clearJournal,
  makeMoves,
  recoverRestore,
  removeStaleStaging,
  RESTORE_JOURNAL,
  STAGED_SUFFIX,
  undoMoves,
  writeJournal,
  type Move,
  type Recovery,
} from './journal';
import { takeFolderAlone } from './folder-lock';
import { attach, carryCounters, copyTableRows, detach } from '../db/user/backup';

/** A restore copies the backup's rows (attached as backup) into the new user file (attached as user). */
const BACKUP_TO_USER = { from: 'backup', to: 'user' } as const;

/** What a restore did: the backup it put in place, where the files it replaced are kept, the stores it left out. */
export type RestoreSummary = BackupInfo & {
  /** The folder holding the replaced files (the cache and the user's file), as they were. */
  previous: string;
  /** Names of the stores the folder listed and the backup does not. */
  storesLeft: string[];
};

/** The two files of a data folder: the cache and the user's own. */
export type DataFiles = { cache: string; user: string };

/** SQLite's companions of a database file, moved along with it. */
const PARTS = ['', '-wal', '-shm'] as const;

/** The data folder's files are the user's alone (the folder itself is 0700). */
const FILE_MODE = 0o600;

function removeAll(files: DataFiles): void {
  for (const file of [files.cache, files.user])
    for (const part of [...PARTS, '-journal']) rmSync(file + part, { force: true });
}

/** A refusal raised by SQLite while the rows go into Splitbook's own tables (a constraint the backup broke). */
function isConstraint(error: unknown): error is Error & { code: string } {
  return error instanceof Database.SqliteError && error.code.startsWith('SQLITE_CONSTRAINT');
}

/**
 * The backup's rows, table by table, in a new user file at the backup's layout made by this Splitbook's
 * migrations: a row a constraint refuses (a type, a NOT NULL, a CHECK, a duplicate key) refuses the
 * restore, and the copy's digest must be the one the backup carries (the file may have changed since it
 * was checked). AUTOINCREMENT's counters come along, so no id of a row since deleted is given again.
 */
function buildUserFile(info: BackupInfo, target: string): void {
  const db = new Database(':memory:');
  try {
    db.pragma('trusted_schema = OFF');
    attach(db, target, 'user');
    migrate(db, USER_DATA_MIGRATIONS.slice(0, info.schemaVersion), 'user');
    chmodSync(target, FILE_MODE);
    attach(db, info.file, 'backup');
    const shape = userShape(info.schemaVersion);
    db.transaction(() => {
      for (const [table, { columns, key }] of shape.tables) {
        try {
          copyTableRows(
            db,
            table,
            columns.map((c) => c.name),
            key,
            BACKUP_TO_USER,
          );
        } catch (error) {
          if (isConstraint(error))
            throw unfit(info.file, `holds rows its table ${table} refuses (${error.message})`);
          throw error;
        }
      }
      carryCounters(db, [...shape.tables.keys()], BACKUP_TO_USER);
    })();
    // What the restore uses is this copy: its rows are checked, and its digest, not the file's again
    // (which may have changed since it was read).
    try {
      checkRows(db, info.schemaVersion, 'user');
    } catch (error) {
      if (error instanceof UnfitBackup) throw unfit(info.file, error.message);
      throw error;
    }
    if (info.digest !== null && contentDigest(db, info.schemaVersion, 'user') !== info.digest)
      throw digestMismatch(info.file);
    detach(db, 'backup');
  } finally {
    db.close();
  }
}

/** An older backup's store list (format 1), taken into the new user file's list. */
function olderStoreList(db: Db, info: BackupInfo): void {
  db.transaction(() => {
    for (const store of info.stores) adoptListedStore(db, store);
  })();
}

/**
 * The backup as the folder's next files, under hidden names beside `live`: the user's file built from
 * it, and a fresh cache holding its stores (filled by the next sync). Both opened, migrated and closed.
 */
export async function stageRestore(
  info: BackupInfo,
  live: DataFiles,
  stamp: string,
): Promise<DataFiles & { discard(): void }> {
  const staged: DataFiles = {
    cache: `${live.cache}${STAGED_SUFFIX}${stamp}`,
    user: `${live.user}${STAGED_SUFFIX}${stamp}`,
  };
  const discard = () => removeAll(staged);
  try {
    buildUserFile(info, staged.user);
    const db = openDatabase(staged.cache, { userDataFile: staged.user });
    try {
      // A backup made before the list moved into the user's file carries it in a table of its own.
      if (info.schemaVersion < STORE_LIST_VERSION && info.stores.length > 0)
        olderStoreList(db, info);
      copyStoreList(db);
    } finally {
      // The last connection's close checkpoints both files: each is whole without its WAL.
      db.close();
    }
    for (const file of [staged.cache, staged.user]) chmodSync(file, FILE_MODE);
    return { ...staged, discard };
  } catch (error) {
    discard();
    throw error;
  }
}

/** The journal's words about the backup, kept with the moves. */
export type SwapLabel = { backup: string; backupCreatedAt: string; startedAt: string };

/**
 * Moves the live files (with their -wal and -shm) into `keep` and the staged ones into their place, the
 * moves written to the folder's journal first, so a process killed between two of them is finished at the
 * next start. Returns how to put everything back, and how to end the journal once the new files opened;
 * a failure midway puts it back before throwing. `step` hears of the journal written and of each rename
 * made ('journal', 'renamed-N': the tests' seam).
 */
export function swapIn(
  dataDir: string,
  staged: DataFiles,
  live: DataFiles,
  keep: string,
  label: SwapLabel,
  step?: (step: string) => void,
): { rollBack(): void; finish(): void } {
  const rel = (path: string) => relative(dataDir, path);
  const moves: Move[] = [];
  for (const file of [live.cache, live.user])
    for (const part of PARTS)
      if (existsSync(file + part))
        moves.push({
          role: 'out',
          from: rel(file + part),
          to: rel(join(keep, basename(file) + part)),
        });
  moves.push({ role: 'in', from: rel(staged.user), to: rel(live.user) });
  moves.push({ role: 'in', from: rel(staged.cache), to: rel(live.cache) });
  mkdirSync(keep, { recursive: true, mode: 0o700 });
  writeJournal(dataDir, { version: 1, ...label, previous: rel(keep), moves });
  step?.('journal');
  let made = 0;
  const putBack = () => {
    undoMoves(dataDir, moves.slice(0, made));
    clearJournal(dataDir);
    try {
      rmdirSync(keep);
    } catch {
      // Not empty: something of the old files could not go back, and stays there.
    }
  };
  try {
    makeMoves(dataDir, moves, (n) => {
      made = n;
      step?.(`renamed-${n}`);
    });
  } catch (error) {
    putBack();
    throw error;
  }
  return {
    rollBack() {
      // What an open of the new files made beside them goes first: never a WAL of theirs under the old ones.
      for (const file of [live.cache, live.user])
        for (const part of ['-wal', '-shm']) rmSync(file + part, { force: true });
      putBack();
    },
    finish: () => clearJournal(dataDir),
  };
}

/**
 * At every start, before the folder's files are opened: a restore cut short (its journal left behind) is
 * finished or undone, and files staged by restores that never reached their swap are removed. Only with
 * the folder held alone (no other Splitbook has it open: a restore under way elsewhere is never touched);
 * a folder that cannot be locked or written is left as it is. Says what it did, or null.
 */
export function recoverFolder(dataDir: string, live: DataFiles): Recovery | null {
  let alone;
  try {
    alone = takeFolderAlone(dataDir);
  } catch {
    return null;
  }
  if (!alone) return null;
  try {
    const recovery = recoverRestore(dataDir);
    removeStaleStaging(dataDir, [basename(live.cache), basename(live.user)]);
    return recovery;
  } catch (error) {
    // A rename refused (a full or read-only disk): the start goes on with the files as they are, and
    // the user is told where the journal is, which the next start tries again.
    console.error('[splitbook] could not finish a restore that was cut short:', error);
    return {
      outcome: 'failed',
      title: 'A restore that was cut short could not be finished',
      detail: `Splitbook stopped while restoring a backup, and could not finish or undo it at this start (${error instanceof Error ? error.message : String(error)}). It tries again at the next start; the steps are in ${join(dataDir, RESTORE_JOURNAL)}, the replaced data in a before-restore folder beside it.`,
    };
  } finally {
    alone.release();
  }
}
