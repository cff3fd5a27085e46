// Opens (or creates) the cache file and attaches the user's own data file to the same connection:
// connection settings, migrations of both, and plain words when a file is unusable.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ProblemError, problem } from '../../../shared/problem';
import { migrate } from './migrations';
import { unpackJson } from './values';
import { USER_DATA_MIGRATIONS } from './user-data/migrations';
import type { Db } from './types';

export type { Db } from './types';

/** How long a write waits for another connection (the CLI, a second window) before giving up. */
const BUSY_TIMEOUT_MS = 5000;

export interface OpenOptions {
  /**
   * The user's own data (what cannot be re-synced: unsent edits, notes, review marks), kept in its
   * own file so a corrupt or rebuilt cache cannot take it along. Attached as schema `user`.
   */
  userDataFile?: string;
}

export function openDatabase(file: string, options: OpenOptions = {}): Db {
  let db: Db | null = null;
  try {
    mkdirSync(dirname(file), { recursive: true });
    db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    // WAL lets the UI read while a sync writes; NORMAL is durable enough in WAL (a power
    // cut may lose the last commits, never corrupt), and the cache can always be re-synced.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // 32 MiB of page cache (the default is 2 MiB): the test list's indexes and rows for tens
    // of thousands of tests stay in memory between pages.
    db.pragma('cache_size = -32768');
    // Compressed records (results_raw.raw_packed) read in SQL, e.g. json_extract(unpack_json(x), '$.a').
    db.function('unpack_json', { deterministic: true }, (packed: unknown) =>
      packed instanceof Uint8Array ? unpackJson(packed) : null,
    );
    migrate(db);
    if (options.userDataFile) attachUserData(db, options.userDataFile);
    return db;
  } catch (error) {
    db?.close();
    throw explain(error, file);
  }
}

function attachUserData(db: Db, file: string): void {
  db.prepare('ATTACH DATABASE ? AS user').run(file);
  db.pragma('user.journal_mode = WAL');
  // FULL: the user's own work must survive a power cut, not only a crash (NORMAL in WAL may lose
  // the last commits on power loss). Its writes are few and small, so the extra fsync costs nothing felt.
  db.pragma('user.synchronous = FULL');
  migrate(db, USER_DATA_MIGRATIONS, 'user');
}

function explain(error: unknown, file: string): ProblemError {
  if (error instanceof ProblemError) return error;
  const code = error instanceof Database.SqliteError ? error.code : null;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return problem(
      'internal',
      500,
      'Unreadable cache',
      `${file} is not a Splitbook cache (it is not a readable SQLite database). Move it aside to start a fresh cache.`,
    );
  }
  const reason = error instanceof Error ? error.message : String(error);
  return problem(
    'internal',
    500,
    'Cannot open the cache',
    `Splitbook could not open ${file}: ${reason}`,
  );
}
