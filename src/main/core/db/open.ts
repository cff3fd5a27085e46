// Opens (or creates) the cache file and attaches the user's own data file to the same connection:
// connection settings, migrations of both, and plain words when a file is unusable.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ProblemError, problem } from '#shared/problem';
import { packText, unpackJson } from './values';
import { MIGRATIONS, migrate, schemaVersion } from './cache/migrations';
import { CORRUPT_CACHE, diskFullProblem, storageFailure, storageProblem } from './storage-errors';
import { USER_DATA_MIGRATIONS } from './user/migrations/migrations';
import type { Db } from './types';
import { spellingKey } from '#shared/domain/metrics';

export type { Db } from './types';

/** How long a write waits for another connection (the CLI, a second window) before giving up. */
const BUSY_TIMEOUT_MS = 5000;

/** Pages the write-ahead log may hold before a commit checkpoints it (SQLite's default is 1,000). */
export const WAL_CHECKPOINT_PAGES = 10_000;
/** What the log is cut back to after a checkpoint. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

export interface OpenOptions {
  /**
   * The user's own data (what cannot be re-synced: unsent edits, notes, review marks), kept in its
   * own file so a corrupt or rebuilt cache cannot take it along. Attached as schema `user`.
   */
  userDataFile?: string;
  /** Run SQLite's quick_check on open (default true); a second connection to a checked file skips it. */
  quickCheck?: boolean;
}

/** Above this size a full quick_check at every start costs more than it is worth; errors still tell. */
export const QUICK_CHECK_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Opens the cache read-write; when the data folder or the file cannot be written, read-only (the
 * connection's `readonly` is then true: browsing works, syncing cannot). A damaged cache, including
 * one that had content and is now an empty file, is refused with the `corrupt` problem.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  const size = fileSize(file);
  // SQLite creates a new cache as an empty file, so 0 bytes alone means "new". But when the user's
  // own file already holds data, a cache existed here: an empty one now is a lost cache, not a new one.
  if (size === 0 && options.userDataFile && (fileSize(options.userDataFile) ?? 0) > 0) {
    throw problem(
      'corrupt',
      500,
      CORRUPT_CACHE.title,
      `${file} is empty although Splitbook has used this data folder before. ${CORRUPT_CACHE.detail}`,
    );
  }
  let db: Db | null = null;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    // Before the WAL exists: SQLite gives a database's -wal and -shm the mode of the database itself.
    ownerOnly(file);
    // WAL lets the UI read while a sync writes; NORMAL is durable enough in WAL (a power
    // cut may lose the last commits, never corrupt), and the cache can always be re-synced.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // 32 MiB of page cache (the default is 2 MiB): the test list's indexes and rows for tens
    // of thousands of tests stay in memory between pages.
    db.pragma('cache_size = -32768');
    // A checkpoint copies the write-ahead log's pages into the file and syncs it. At the default of
    // every 1,000 pages (4 MB), a first sync of twenty stores checkpointed after nearly every page of
    // tests it wrote, since each rewrites most pages of the tests table's indexes: 4.3 s of its 36 s
    // of CPU went there. Every 10,000 pages (40 MB) copies each page once where it was copied many
    // times; the log is cut back to 64 MB at most after a checkpoint.
    db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    addFunctions(db);
    // Attached before the first transaction: better-sqlite3 prepares its BEGIN statements once per
    // connection, at the first db.transaction(), and SQLite compiles BEGIN IMMEDIATE to lock the files
    // attached then. Prepared before the ATTACH (the cache's migration was the first), every immediate
    // transaction left the user's file unlocked, and a write to it failed at once with "database is
    // locked" whenever another process had written it since the transaction began.
    if (options.userDataFile) attachUserData(db, options.userDataFile);
    if ((options.quickCheck ?? true) && size !== null && size > 0 && size <= QUICK_CHECK_MAX_BYTES)
      quickCheck(db);
    migrate(db);
    if (options.userDataFile) migrate(db, USER_DATA_MIGRATIONS, 'user');
    return db;
  } catch (error) {
    db?.close();
    if (storageFailure(error) === 'read-only' && size !== null && size > 0) {
      return openReadOnly(file, options);
    }
    // A full disk: opening needs a little room (a WAL index, a log), reading none. The folder's data is
    // read as it is, and nothing is written until there is space again.
    if (size !== null && size > 0 && noSpaceLeft(dirname(file))) {
      return openWithoutSpace(file, options);
    }
    throw explain(error, file);
  }
}

/** Connections opened on a disk with no space left: they read, and refuse every write. */
const OPENED_FULL = new WeakSet<Db>();

/** Whether `db` was opened on a full disk (it reads, and refuses every write). */
export function openedOnFullDisk(db: Db): boolean {
  return OPENED_FULL.has(db);
}

/** Under this much free space a failed open is taken for a full disk (SQLite names it an I/O error). */
const FULL_BELOW_BYTES = 256 * 1024;

/** Whether the folder's disk has (nearly) no space left for this user. */
export function noSpaceLeft(folder: string): boolean {
  try {
    const stats = statfsSync(folder);
    return stats.bavail * stats.bsize < FULL_BELOW_BYTES;
  } catch {
    return false;
  }
}

/**
 * Both files read as they are on a disk with no space left. A WAL file needs its -shm index, which cannot
 * be made without space; in exclusive locking mode SQLite keeps that index in memory instead, so the WAL's
 * last commits are read too. query_only refuses every write (as SQLITE_READONLY).
 */
function openWithoutSpace(file: string, options: OpenOptions): Db {
  let db: Db | null = null;
  try {
    db = new Database(file, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('query_only = 1');
    db.pragma('foreign_keys = ON');
    addFunctions(db);
    if (options.userDataFile && existsSync(options.userDataFile)) {
      db.prepare('ATTACH DATABASE ? AS user').run(options.userDataFile);
      db.pragma('user.locking_mode = EXCLUSIVE');
    }
    const newest = MIGRATIONS.at(-1)?.version ?? 0;
    if (schemaVersion(db) !== newest) {
      throw new ProblemError(
        diskFullProblem(dirname(file), 'Its cache needs an upgrade that must write to it.'),
      );
    }
    OPENED_FULL.add(db);
    return db;
  } catch (error) {
    db?.close();
    throw explain(error, file);
  }
}

/** The file's size, or null when there is none. */
function fileSize(file: string): number | null {
  try {
    return existsSync(file) ? statSync(file).size : null;
  } catch {
    return null;
  }
}

/** SQLite's cheap check (no index-content comparison); a damaged page fails the open. */
function quickCheck(db: Db): void {
  // The cache's own check: unqualified, the pragma would check the user's attached file too.
  const result = db.pragma('main.quick_check(1)', { simple: true });
  if (result !== 'ok') {
    throw Object.assign(new Error(`quick_check: ${String(result)}`), { code: 'SQLITE_CORRUPT' });
  }
}

/**
 * A read-only connection to the file. In WAL mode SQLite needs its -shm index, which it cannot create
 * in a read-only folder: then the file is read into memory instead (marked as not WAL, since the
 * snapshot has no WAL), still read-only. The cache is checkpointed at every clean close, so the file
 * holds what was synced, but for the last commits of a process that was killed.
 */
function openReadOnlyConnection(file: string): Db {
  let db: Db | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    // The WAL index is needed at the first read, not at the open: read once to know.
    db.pragma('user_version');
    return db;
  } catch (error) {
    db?.close();
    if (storageFailure(error) !== 'read-only') throw error;
    const image = readFileSync(file);
    // Bytes 18 and 19 of the header are the write and read format versions: 2 is WAL, 1 is rollback.
    if (image.length >= 20) image.fill(1, 18, 20);
    return new Database(image, { readonly: true });
  }
}

/** The cache as it is, read-only: browsing what was synced goes on while nothing can be written. */
function openReadOnly(file: string, options: OpenOptions): Db {
  let db: Db | null = null;
  try {
    db = openReadOnlyConnection(file);
    db.pragma('foreign_keys = ON');
    addFunctions(db);
    const newest = MIGRATIONS.at(-1)?.version ?? 0;
    if (schemaVersion(db) !== newest) {
      throw problem(
        'readOnly',
        507,
        'The data folder cannot be written',
        `${dirname(file)} is read-only and its cache needs an upgrade that must write to it. Make the folder writable and start Splitbook again.`,
      );
    }
    // Attached from a read-only connection, the user's file is read-only too. A folder where SQLite
    // cannot even open it read-only (its WAL index cannot be made) leaves it out: browsing the cache
    // goes on, and nothing can be written to it anyway.
    if (options.userDataFile && existsSync(options.userDataFile)) {
      try {
        db.prepare('ATTACH DATABASE ? AS user').run(options.userDataFile);
      } catch (error) {
        if (storageFailure(error) !== 'read-only') throw error;
      }
    }
    return db;
  } catch (error) {
    db?.close();
    throw explain(error, file);
  }
}

/**
 * SQL functions of the cache: compressed records (results_raw.raw_packed, tests_raw_packed through
 * the tests_raw view) read with json_extract(unpack_json(x), '$.a') and written with pack_text(x); spelling_key(x), a goal's spelling-free key (the domain's
 * spellingKey), so a filter on one goal matches all its spellings.
 */
function addFunctions(db: Db): void {
  db.function('unpack_json', { deterministic: true }, (packed: unknown) =>
    packed instanceof Uint8Array ? unpackJson(packed) : null,
  );
  // What tests_raw's triggers pack a test's record with (cache migration 22).
  db.function('pack_text', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? packText(text) : null,
  );
  db.function('spelling_key', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? spellingKey(value) : null,
  );
}

/**
 * A data file readable and writable by its owner only (0600), with any -wal and -shm already beside it:
 * the user's notes and edits, and what the stores sent, are nobody else's. Left as it is where the mode
 * cannot be changed (another owner's file, a file system without modes).
 */
function ownerOnly(file: string): void {
  if (file === ':memory:' || file === '') return;
  for (const part of ['', '-wal', '-shm']) {
    try {
      if (existsSync(file + part)) chmodSync(file + part, 0o600);
    } catch {
      // Not ours to change: SQLite's own open said whether it can be used.
    }
  }
}

function attachUserData(db: Db, file: string): void {
  db.prepare('ATTACH DATABASE ? AS user').run(file);
  ownerOnly(file);
  db.pragma('user.journal_mode = WAL');
  // FULL: the user's own work must survive a power cut, not only a crash (NORMAL in WAL may lose
  // the last commits on power loss). Its writes are few and small, so the extra fsync costs nothing felt.
  db.pragma('user.synchronous = FULL');
}

function explain(error: unknown, file: string): ProblemError {
  if (error instanceof ProblemError) return error;
  const storage = storageProblem(error, dirname(file));
  if (storage?.type === CORRUPT_CACHE.type) {
    return new ProblemError({
      ...storage,
      detail: `${file} cannot be read correctly. ${storage.detail}`,
    });
  }
  if (storage) return new ProblemError(storage);
  const reason = error instanceof Error ? error.message : String(error);
  return problem(
    'internal',
    500,
    'Cannot open the cache',
    `Splitbook could not open ${file}: ${reason}`,
  );
}
