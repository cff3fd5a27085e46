// Opens (or creates) the one cache file: connection settings, migrations, and plain words when the file is unusable.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ProblemError, problem } from '../../../shared/problem';
import { migrate } from './migrations';
import type { Db } from './types';

export type { Db } from './types';

/** How long a write waits for another connection (the CLI, a second window) before giving up. */
const BUSY_TIMEOUT_MS = 5000;

export function openDatabase(file: string): Db {
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
    migrate(db);
    return db;
  } catch (error) {
    db?.close();
    throw explain(error, file);
  }
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
