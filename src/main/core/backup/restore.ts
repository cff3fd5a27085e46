// Restoring a backup: the new files are made beside the live ones and opened as the app opens them (an
// older backup is brought up to date there) before anything is replaced; then they are swapped in, the
// files they replace moved to a folder of their own and kept, and every step undone if one fails.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { insertStore } from '../db/cache/stores';
import { openDatabase } from '../db/open';
import { copyUserData, type BackupInfo } from './backup-file';

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

function removeAll(files: DataFiles): void {
  for (const file of [files.cache, files.user])
    for (const part of PARTS) rmSync(file + part, { force: true });
}

/**
 * The backup as the folder's next files, under hidden names beside `live`: the user's file copied from
 * it, and a fresh cache holding its stores (filled by the next sync). Both opened, migrated and closed.
 */
export async function stageRestore(
  info: BackupInfo,
  live: DataFiles,
  stamp: string,
): Promise<DataFiles & { discard(): void }> {
  const staged: DataFiles = {
    cache: `${live.cache}.restoring-${stamp}`,
    user: `${live.user}.restoring-${stamp}`,
  };
  const discard = () => removeAll(staged);
  try {
    await copyUserData(info.file, staged.user);
    const db = openDatabase(staged.cache, { userDataFile: staged.user });
    try {
      db.transaction(() => {
        for (const store of info.stores)
          insertStore(db, {
            id: store.id,
            name: store.name,
            baseUrl: store.baseUrl,
            kind: store.kind,
            keyStorage: store.keyStorage,
            createdAt: store.createdAt,
            position: store.position,
          });
      })();
    } finally {
      // The last connection's close checkpoints both files: each is whole without its WAL.
      db.close();
    }
    return { ...staged, discard };
  } catch (error) {
    discard();
    throw error;
  }
}

/**
 * Moves the live files (with their -wal and -shm) into `keep` and the staged ones into their place.
 * Returns how to put everything back; a failure midway puts it back before throwing.
 */
export function swapIn(staged: DataFiles, live: DataFiles, keep: string): { rollBack(): void } {
  const moves: [from: string, to: string][] = [];
  const move = (from: string, to: string) => {
    renameSync(from, to);
    moves.push([from, to]);
  };
  const undo = () => {
    for (const [from, to] of moves.reverse()) if (existsSync(to)) renameSync(to, from);
    moves.length = 0;
  };
  try {
    mkdirSync(keep, { recursive: true });
    for (const file of [live.cache, live.user])
      for (const part of PARTS)
        if (existsSync(file + part)) move(file + part, join(keep, basename(file) + part));
    move(staged.user, live.user);
    move(staged.cache, live.cache);
  } catch (error) {
    undo();
    throw error;
  }
  return {
    rollBack() {
      // What an open of the new files made beside them goes first: never a WAL of theirs under the old ones.
      for (const file of [live.cache, live.user])
        for (const part of ['-wal', '-shm']) rmSync(file + part, { force: true });
      undo();
    },
  };
}
