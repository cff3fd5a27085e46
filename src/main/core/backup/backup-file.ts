// A backup: one SQLite file holding a consistent copy of the user's own file (splitbook-user.db: the
// outbox, notes, annotations, review memory, settings, decisions' overrides and plans, takeaways), made
// with SQLite's online backup while the app runs, plus the store list (no keys: they stay in the keychain)
// and a label saying what it is. The cache is left out: a sync brings it back (README, "Backup").
import { randomBytes } from 'node:crypto';
import { existsSync, fsyncSync, openSync, closeSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { problem } from '#shared/problem';
import type { Db, StoreRow } from '../db/types';
import { USER_DATA_MIGRATIONS } from '../db/user/migrations/migrations';

/** What the label says a backup is, and the newest layout of one this Splitbook reads. */
export const BACKUP_FORMAT = 'splitbook-backup';
export const BACKUP_FORMAT_VERSION = 1;
/** The backup's own tables, beside the user's; a restore drops them. */
export const LABEL_TABLE = 'splitbook_backup';
export const STORES_TABLE = 'splitbook_backup_stores';

/** The newest layout of the user's file this Splitbook knows. */
export const USER_SCHEMA_VERSION = USER_DATA_MIGRATIONS.at(-1)?.version ?? 0;

/** A store as a backup keeps it: enough to list it again, never its key. */
export type BackupStore = Pick<
  StoreRow,
  'id' | 'name' | 'baseUrl' | 'kind' | 'keyStorage' | 'createdAt'
> & { position: number };

export type BackupInfo = {
  file: string;
  createdAt: string;
  /** The Splitbook version that made it. */
  appVersion: string;
  /** The user file's schema version (PRAGMA user_version). */
  schemaVersion: number;
  stores: BackupStore[];
  /** What the user made, counted: records waiting in the outbox, notes, annotations, takeaways. */
  counts: { pendingEdits: number; notes: number; annotations: number; takeaways: number };
  bytes: number;
};

const LABEL_SQL = `
CREATE TABLE ${LABEL_TABLE} (
  format         TEXT NOT NULL,
  format_version INTEGER NOT NULL,
  created_at     TEXT NOT NULL,
  app_version    TEXT NOT NULL,
  schema_version INTEGER NOT NULL
) STRICT;
CREATE TABLE ${STORES_TABLE} (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  base_url    TEXT NOT NULL,
  kind        TEXT NOT NULL,
  key_storage TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  position    INTEGER NOT NULL
) STRICT;`;

/** A file's bytes on disk before it is renamed into place, so a power cut never leaves half of it. */
function flush(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the backup to `out` (atomically: a hidden temporary name in its folder, renamed when whole and
 * checked). `db` is the core's connection with the user's file attached as `user`; `stores` its list.
 */
export async function writeBackup(
  db: Db,
  out: string,
  stores: readonly StoreRow[],
  label: { appVersion: string; now: Date },
): Promise<BackupInfo> {
  const folder = dirname(out);
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw problem('validation', 400, 'No such folder', `${folder} does not exist.`);
  const temp = join(folder, `.${basename(out)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    // SQLite's online backup of the attached user file: a consistent copy even while a sync (another
    // connection) writes to it, since the copy starts over when the file changes under it.
    await db.backup(temp, { attached: 'user' } as unknown as Database.BackupOptions);
    const copy = new Database(temp);
    try {
      // One self-contained file: no WAL beside it.
      copy.pragma('journal_mode = DELETE');
      const schemaVersion = Number(copy.pragma('user_version', { simple: true }));
      copy.exec(LABEL_SQL);
      copy.transaction(() => {
        copy
          .prepare(`INSERT INTO ${LABEL_TABLE} VALUES (?, ?, ?, ?, ?)`)
          .run(
            BACKUP_FORMAT,
            BACKUP_FORMAT_VERSION,
            label.now.toISOString(),
            label.appVersion,
            schemaVersion,
          );
        const insert = copy.prepare(`INSERT INTO ${STORES_TABLE} VALUES (?, ?, ?, ?, ?, ?, ?)`);
        stores.forEach((store, position) =>
          insert.run(
            store.id,
            store.name,
            store.baseUrl,
            store.kind,
            store.keyStorage,
            store.createdAt,
            position,
          ),
        );
      })();
      const check = copy.pragma('integrity_check', { simple: true });
      if (check !== 'ok') throw new Error(`The copy failed its integrity check: ${String(check)}`);
    } finally {
      copy.close();
    }
    flush(temp);
    renameSync(temp, out);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return readBackup(out);
}

/** Whether `name` is a table of `db`. */
function hasTable(db: Database.Database, name: string): boolean {
  return (
    db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !==
    undefined
  );
}

function count(db: Database.Database, sql: string, table: string): number {
  if (!hasTable(db, table)) return 0;
  const row = db.prepare(sql).get() as { n: number } | undefined;
  return row?.n ?? 0;
}

const NOT_A_BACKUP = (file: string, why: string) =>
  problem('validation', 400, 'Not a Splitbook backup', `${file} ${why}. Nothing was changed.`);

/**
 * What a backup holds, read and checked without changing anything: it must be a SQLite file that passes
 * SQLite's integrity check, carry Splitbook's label, and be of a layout this Splitbook knows (a backup
 * from a newer Splitbook is refused). Throws a problem saying which, in words.
 */
export function readBackup(file: string): BackupInfo {
  if (!existsSync(file) || !statSync(file).isFile())
    throw problem('notFound', 404, 'No such file', `${file} does not exist.`);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch {
    throw NOT_A_BACKUP(file, 'cannot be opened as one');
  }
  try {
    let check: unknown;
    try {
      check = db.pragma('integrity_check', { simple: true });
    } catch (error) {
      const code = error instanceof Database.SqliteError ? error.code : '';
      if (code === 'SQLITE_NOTADB') throw NOT_A_BACKUP(file, 'is not a SQLite database');
      throw damaged(file, error instanceof Error ? error.message : String(error));
    }
    if (check !== 'ok') throw damaged(file, String(check));
    if (!hasTable(db, LABEL_TABLE) || !hasTable(db, STORES_TABLE))
      throw NOT_A_BACKUP(file, 'is a SQLite database without the label a backup carries');
    const label = db
      .prepare(
        `SELECT format, format_version AS formatVersion, created_at AS createdAt,
                app_version AS appVersion, schema_version AS schemaVersion FROM ${LABEL_TABLE}`,
      )
      .get() as
      | {
          format: string;
          formatVersion: number;
          createdAt: string;
          appVersion: string;
          schemaVersion: number;
        }
      | undefined;
    if (!label || label.format !== BACKUP_FORMAT)
      throw NOT_A_BACKUP(file, 'is a SQLite database without the label a backup carries');
    const schemaVersion = Number(db.pragma('user_version', { simple: true }));
    if (label.formatVersion > BACKUP_FORMAT_VERSION || schemaVersion > USER_SCHEMA_VERSION)
      throw problem(
        'validation',
        400,
        'Backup from a newer Splitbook',
        `${file} was made by Splitbook ${label.appVersion}, whose data is newer (layout ${schemaVersion}) than this Splitbook reads (up to ${USER_SCHEMA_VERSION}). Update Splitbook, then restore it. Nothing was changed.`,
      );
    const stores = db
      .prepare(
        `SELECT id, name, base_url AS baseUrl, kind, key_storage AS keyStorage,
                created_at AS createdAt, position FROM ${STORES_TABLE} ORDER BY position`,
      )
      .all() as BackupStore[];
    return {
      file,
      createdAt: label.createdAt,
      appVersion: label.appVersion,
      schemaVersion,
      stores,
      counts: {
        pendingEdits: count(
          db,
          `SELECT count(*) AS n FROM (SELECT DISTINCT store_id, kind, record_id FROM outbox)`,
          'outbox',
        ),
        notes: count(db, `SELECT count(*) AS n FROM notes`, 'notes'),
        annotations: count(db, `SELECT count(*) AS n FROM store_annotations`, 'store_annotations'),
        takeaways: count(db, `SELECT count(*) AS n FROM takeaways`, 'takeaways'),
      },
      bytes: statSync(file).size,
    };
  } finally {
    db.close();
  }
}

function damaged(file: string, detail: string) {
  return problem(
    'corrupt',
    422,
    'The backup is damaged',
    `${file} fails SQLite's integrity check (${detail}). Use another backup. Nothing was changed.`,
  );
}

/** Copies a checked backup to `to` as a user file: SQLite's backup again, then the label dropped. */
export async function copyUserData(from: string, to: string): Promise<void> {
  const source = new Database(from, { readonly: true, fileMustExist: true });
  try {
    await source.backup(to);
  } finally {
    source.close();
  }
  const copy = new Database(to);
  try {
    copy.exec(`DROP TABLE ${LABEL_TABLE}; DROP TABLE ${STORES_TABLE};`);
  } finally {
    copy.close();
  }
  flush(to);
}
