// A restore's journal: the renames of its swap written to the data folder before the first one, so a
// process killed between two of them is finished (or, when it cannot be, undone) at the next start, and
// staged files no journal names (a restore killed while staging) are removed then.
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, isAbsolute, join, normalize } from 'node:path';
import { z } from 'zod';

/** The journal's file in the data folder; there is one only while a swap is under way or was cut short. */
export const RESTORE_JOURNAL = 'restore-journal.json';

/** The suffix of a restore's staged files: `<file>.restoring-<stamp>`. */
export const STAGED_SUFFIX = '.restoring-';

/** A path inside the data folder, relative to it, never climbing out of it. */
const InsidePath = z
  .string()
  .min(1)
  .refine((path) => !isAbsolute(path) && !normalize(path).split(/[\\/]/).includes('..'), {
    message: 'a path inside the data folder',
  });

/**
 * One rename of the swap: `out` moves a live file into the folder kept for it, `in` a staged file into
 * the live place. Their order is the journal's.
 */
const Move = z.object({ role: z.enum(['out', 'in']), from: InsidePath, to: InsidePath });
export type Move = z.infer<typeof Move>;

const Journal = z.object({
  version: z.literal(1),
  /** The backup being restored and when it was made, for the words the user reads. */
  backup: z.string(),
  backupCreatedAt: z.string(),
  startedAt: z.string(),
  /** The folder the replaced files go to, relative to the data folder. */
  previous: InsidePath,
  moves: z.array(Move),
});
export type Journal = z.infer<typeof Journal>;

/** What a start did of a cut-short restore: finished, undone, or neither (it failed), in words for the user. */
export type Recovery = { outcome: 'finished' | 'undone' | 'failed'; title: string; detail: string };

/** A file's bytes (or a folder's entries) on disk before the next step relies on them. */
function sync(path: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // A folder cannot be fsynced on every platform; the rename is still atomic.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Writes the journal whole (a temporary name, synced, renamed, the folder synced) before the swap begins. */
export function writeJournal(dataDir: string, journal: Journal): void {
  const file = join(dataDir, RESTORE_JOURNAL);
  const temp = `${file}.partial`;
  writeFileSync(temp, JSON.stringify(journal, null, 2), { mode: 0o600 });
  sync(temp);
  renameSync(temp, file);
  sync(dataDir);
}

/** The swap is over (done, or put back): the journal goes. */
export function clearJournal(dataDir: string): void {
  rmSync(join(dataDir, RESTORE_JOURNAL), { force: true });
  rmSync(join(dataDir, `${RESTORE_JOURNAL}.partial`), { force: true });
  sync(dataDir);
}

/** The journal left in the folder, or null; one that cannot be read counts as none (and is set aside). */
function readJournal(dataDir: string): Journal | null {
  const file = join(dataDir, RESTORE_JOURNAL);
  if (!existsSync(file)) return null;
  try {
    return Journal.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    // Written whole before the first rename, so an unreadable one was never acted on: nothing moved.
    renameSync(file, `${file}.unreadable-${Date.now()}`);
    return null;
  }
}

/** Runs the journal's moves from the first not yet made; `step` hears of each one made (the tests' seam). */
export function makeMoves(
  dataDir: string,
  moves: readonly Move[],
  step?: (n: number) => void,
): void {
  moves.forEach((move, index) => {
    renameSync(join(dataDir, move.from), join(dataDir, move.to));
    step?.(index + 1);
  });
  sync(dataDir);
}

/** Puts back the moves already made, last first. */
export function undoMoves(dataDir: string, moves: readonly Move[]): void {
  for (const move of [...moves].reverse()) {
    const from = join(dataDir, move.from);
    const to = join(dataDir, move.to);
    if (existsSync(to) && !existsSync(from)) renameSync(to, from);
  }
  sync(dataDir);
}

/**
 * How many of the journal's moves were made, read from the folder: they are made in order, each `out`
 * into a folder that only they fill, each `in` out of a staged name only it empties.
 */
function movesMade(dataDir: string, moves: readonly Move[]): number {
  const at = (path: string) => existsSync(join(dataDir, path));
  let made = 0;
  for (const move of moves) {
    const done = move.role === 'out' ? at(move.to) : !at(move.from) && at(move.to);
    if (!done) break;
    made += 1;
  }
  return made;
}

/**
 * Finishes or undoes a swap the journal says was under way; called at start with the folder held alone.
 * Finished when every staged file not yet moved in is still there (the staged files were whole and
 * closed before the journal was written); undone otherwise. A file found in a live place it should not
 * be in (made after the kill by something that did not know of the journal) is kept beside the
 * replaced files, never deleted. Null when there was no journal.
 */
export function recoverRestore(dataDir: string): Recovery | null {
  const journal = readJournal(dataDir);
  if (!journal) return null;
  const at = (path: string) => existsSync(join(dataDir, path));
  const made = movesMade(dataDir, journal.moves);
  const left = journal.moves.slice(made);
  const where = join(dataDir, journal.previous);
  if (left.every((move) => move.role === 'out' || at(move.from))) {
    for (const move of left) {
      // A live file gone before its move (a -wal SQLite removed) has nothing to move.
      if (!at(move.from)) continue;
      if (move.role === 'in' && at(move.to)) setAside(dataDir, move.to, journal.previous);
      renameSync(join(dataDir, move.from), join(dataDir, move.to));
    }
    sync(dataDir);
    clearJournal(dataDir);
    return {
      outcome: 'finished',
      title: 'A restore that was cut short has been finished',
      detail: `Splitbook stopped while restoring ${journal.backup} (made ${journal.backupCreatedAt}) and finished it at this start: your data is the backup's. The data it replaced is kept in ${where}.`,
    };
  }
  undoMoves(dataDir, journal.moves.slice(0, made));
  for (const move of journal.moves)
    if (move.role === 'in') removeWithParts(join(dataDir, move.from));
  try {
    rmdirSync(where);
  } catch {
    // Not empty: something of the old files could not go back, and stays there.
  }
  clearJournal(dataDir);
  return {
    outcome: 'undone',
    title: 'A restore that was cut short has been undone',
    detail: `Splitbook stopped while restoring ${journal.backup}, and the files it had staged were no longer there, so the restore was undone at this start: your data is as it was before it. Restore the backup again if you still want it.`,
  };
}

/** Moves a file found in a live place into the kept folder, under a name saying when it was found. */
function setAside(dataDir: string, path: string, keep: string): void {
  renameSync(join(dataDir, path), join(dataDir, keep, `${basename(path)}.found-after-restore`));
}

function removeWithParts(file: string): void {
  for (const part of ['', '-wal', '-shm', '-journal']) rmSync(file + part, { force: true });
}

/**
 * Staged files of restores that never reached their swap (killed while staging, or before this was
 * cleaned): removed, with their -wal and -shm. Called at start with the folder held alone and after any
 * journal was dealt with, so a restore under way in another process is never touched.
 */
export function removeStaleStaging(dataDir: string, liveNames: readonly string[]): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!liveNames.some((live) => name.startsWith(`${live}${STAGED_SUFFIX}`))) continue;
    try {
      rmSync(join(dataDir, name), { force: true });
      removed += 1;
    } catch (error) {
      // Left for the next start: a file that cannot be removed never stops this one.
      console.error(`[splitbook] could not remove ${name} left by a restore:`, error);
    }
  }
  return removed;
}
