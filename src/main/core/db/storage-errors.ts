// The one place where a disk or SQLite failure (full, read-only, corrupt) becomes a problem a user can read.
import { appProblem, PROBLEM_TYPES, ProblemError, type Problem } from '#shared/problem';

export type StorageFailure = 'corrupt' | 'read-only' | 'full' | 'io' | 'busy';

/** The code of a SQLite or file-system error (better-sqlite3 uses SQLite's extended codes). */
function codeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error) return String(error.code);
  return '';
}

/** Which storage failure an error is, or null when it is none of them. */
export function storageFailure(error: unknown): StorageFailure | null {
  if (error instanceof ProblemError) {
    if (error.problem.type === PROBLEM_TYPES.corrupt) return 'corrupt';
    if (error.problem.type === PROBLEM_TYPES.readOnly) return 'read-only';
    return null;
  }
  const code = codeOf(error);
  // SQLITE_CORRUPT and its extended codes (_VTAB, _SEQUENCE, _INDEX), and a file that is not a database.
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) return 'corrupt';
  // CANTOPEN: SQLite could not open (or create) a file it needs in the data folder.
  if (/^SQLITE_(READONLY|CANTOPEN)/.test(code) || ['EROFS', 'EACCES', 'EPERM'].includes(code))
    return 'read-only';
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return 'busy';
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  if (/^SQLITE_IOERR/.test(code) || code === 'EIO') return 'io';
  return null;
}

export const CORRUPT_CACHE = appProblem(
  'corrupt',
  500,
  'The cache is damaged',
  "Splitbook's cache file cannot be read correctly. Rebuild it from the stores' servers: your own data (notes, review marks, unsent edits) is kept in a separate file and is not touched.",
);

export function readOnlyProblem(dataDir: string | null): Problem {
  return appProblem(
    'readOnly',
    507,
    'The data folder cannot be written',
    `Splitbook cannot write to ${dataDir ?? 'its data folder'} (it is read-only or not yours). You can keep browsing what is cached; syncing and changes need a writable folder.`,
  );
}

export const DISK_FULL = appProblem(
  'internal',
  507,
  'The disk is full',
  'Splitbook could not write to its cache. What was synced before is kept; free some space and sync again.',
);

/** The disk of `file` (a report, a backup, the user's own file) is full: what was there is kept. */
export function diskFullProblem(file: string, kept: string): Problem {
  return appProblem(
    'internal',
    507,
    'The disk is full',
    `Splitbook could not write ${file}: there is no space left on its disk. ${kept} Free some space and try again.`,
  );
}

export const DISK_IO = appProblem(
  'internal',
  500,
  'The disk failed to read or write',
  'Splitbook got an input/output error from the disk. What was synced before is kept; check the disk and sync again.',
);

export const CACHE_BUSY = appProblem(
  'conflict',
  409,
  'The cache is busy',
  'Another program kept the cache locked for too long. Nothing was lost; try again in a moment.',
);

/**
 * A change the user made (an edit, a note, a setting) that the disk had no room for: it is kept in the user's
 * own file, which is what could not be written.
 */
export const USER_DISK_FULL = appProblem(
  'internal',
  507,
  'The disk is full',
  'Splitbook could not save this in your own data (splitbook-user.db in its data folder): there is no space left on its disk. Nothing was changed; free some space and try again.',
);

/**
 * The problem for a storage failure, or null when the error is not one. `writing` says what a full disk
 * refused: a sync's cache (the default) or the user's own change (a call of the window or the CLI).
 */
export function storageProblem(
  error: unknown,
  dataDir: string | null = null,
  writing: 'cache' | 'user' = 'cache',
): Problem | null {
  if (error instanceof ProblemError && storageFailure(error)) return error.problem;
  switch (storageFailure(error)) {
    case 'corrupt':
      return CORRUPT_CACHE;
    case 'read-only':
      return readOnlyProblem(dataDir);
    case 'full':
      return writing === 'user' ? USER_DISK_FULL : DISK_FULL;
    case 'io':
      return DISK_IO;
    case 'busy':
      return CACHE_BUSY;
    case null:
      return null;
  }
}
