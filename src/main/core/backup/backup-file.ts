// A backup: one SQLite file holding a consistent copy of the user's own file (splitbook-user.db: the store
// list, the outbox, notes, annotations, review memory, settings, decisions' overrides and plans,
// takeaways), made with SQLite's online backup while the app runs, and a label saying what it is, with a
// digest of its contents. No keys (they stay in the keychain), no cache (a sync brings it back: README,
// "Backup"). What it may hold, and the digest, are backup/contents.ts's.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { problem, type ProblemError } from '#shared/problem';
import type { Db, StoreRow } from '../db/types';
import {
  backupCounts,
  backupStores,
  dropObject,
  hasTable,
  ownObjects,
  readLabelRow,
  vacuum,
  writeLabel,
  type BackupLabel,
} from '../db/user/backup';
import { USER_DATA_MIGRATIONS } from '../db/user/migrations/migrations';
import {
  checkOlderStoreList,
  checkRows,
  checkShape,
  contentDigest,
  UnfitBackup,
  userShape,
  type ExtraTable,
} from './contents';

/** What the label says a backup is, and the newest layout of one this Splitbook reads and writes. */
export const BACKUP_FORMAT = 'splitbook-backup';
/** 1: the store list in a table of its own, no digest. 2: the list in the user's file, and a digest. */
export const BACKUP_FORMAT_VERSION = 2;
/** The backup's own tables, beside the user's; a restore leaves them out. */
export const LABEL_TABLE = 'splitbook_backup';
/** Format 1's store list (the list was the cache's then); read, never written. */
export const STORES_TABLE = 'splitbook_backup_stores';

/** The newest layout of the user's file this Splitbook knows. */
export const USER_SCHEMA_VERSION = USER_DATA_MIGRATIONS.at(-1)?.version ?? 0;
/** The first layout of the user's file that holds the store list (user-data migration 10). */
export const STORE_LIST_VERSION = 10;

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
  /** The SHA-256 of its contents it carries and that they match; null for a backup of format 1, made without one. */
  digest: string | null;
};

const LABEL_COLUMNS_V1 = [
  'format',
  'format_version',
  'created_at',
  'app_version',
  'schema_version',
] as const;
const LABEL_COLUMNS = [...LABEL_COLUMNS_V1, 'digest'] as const;
const STORES_COLUMNS = [
  'id',
  'name',
  'base_url',
  'kind',
  'key_storage',
  'created_at',
  'position',
] as const;

/** A file's bytes on disk before it is renamed into place, so a power cut never leaves half of it. */
export function flush(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Drops from a fresh copy what the user file holds beside Splitbook's own tables (a table an older restore
 * let in, an index or trigger someone added): a backup carries Splitbook's data only. True when anything went.
 */
function dropForeign(copy: Database.Database, version: number): boolean {
  const shape = userShape(version);
  const foreign = ownObjects(copy).filter(
    (o) =>
      (o.type === 'table' && !shape.tables.has(o.name)) ||
      (o.type === 'index' && !shape.indexes.has(o.name)) ||
      o.type === 'trigger' ||
      o.type === 'view',
  );
  for (const object of foreign) dropObject(copy, object);
  return foreign.length > 0;
}

/**
 * Writes the backup to `out` (atomically: a hidden temporary name in its folder, renamed when whole and
 * checked). `db` is the core's connection with the user's file attached as `user`.
 */
export async function writeBackup(
  db: Db,
  out: string,
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
    // The user's data is theirs alone to read, wherever they keep the backup.
    chmodSync(temp, 0o600);
    const copy = new Database(temp);
    try {
      // One self-contained file: no WAL beside it.
      copy.pragma('journal_mode = DELETE');
      const schemaVersion = Number(copy.pragma('user_version', { simple: true }));
      // Nothing foreign rides along, not even in the free pages a DROP leaves.
      if (dropForeign(copy, schemaVersion)) vacuum(copy);
      try {
        checkRows(copy, schemaVersion);
      } catch (error) {
        if (error instanceof UnfitBackup)
          throw problem(
            'validation',
            422,
            'Your data cannot be backed up as it is',
            `It ${error.message}, so the backup could not be restored. Nothing was written.`,
          );
        throw error;
      }
      const digest = contentDigest(copy, schemaVersion);
      writeLabel(copy, LABEL_TABLE, {
        format: BACKUP_FORMAT,
        formatVersion: BACKUP_FORMAT_VERSION,
        createdAt: label.now.toISOString(),
        appVersion: label.appVersion,
        schemaVersion,
        digest,
      });
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
  // Checked whole before it was given its name: read back for what it holds.
  return readBackup(out, 'written');
}

const NOT_A_BACKUP = (file: string, why: string) =>
  problem('validation', 400, 'Not a Splitbook backup', `${file} ${why}. Nothing was changed.`);

/** What a restore refuses to take in (a foreign table, a note over the limit), in words. */
export const unfit = (file: string, why: string) =>
  problem(
    'validation',
    422,
    'This backup cannot be restored',
    `${file} ${why}: Splitbook restores only what it makes itself. Nothing was changed.`,
  );

/** A backup whose rows no longer match the digest it carries. */
export const digestMismatch = (file: string) =>
  problem(
    'corrupt',
    422,
    'The backup is damaged',
    `${file} no longer holds what was written into it: its contents do not match the digest made with them (a byte changed since, on the disk or on the way). Use another backup. Nothing was changed.`,
  );

/** The path must name a regular file: a device or a pipe cannot be read twice (checked, then copied). */
function requireFile(file: string): void {
  let stats;
  try {
    stats = statSync(file);
  } catch {
    throw problem('notFound', 404, 'No such file', `${file} does not exist.`);
  }
  if (stats.isDirectory())
    throw problem(
      'validation',
      400,
      'Not a backup file',
      `${file} is a folder. Give the path of a backup file (made with backup --out FILE). Nothing was changed.`,
    );
  if (!stats.isFile())
    throw problem(
      'validation',
      400,
      'Not a backup file',
      `${file} is not a regular file (a device, a pipe or a socket, as /dev/stdin is): Splitbook reads a backup twice, to check it and then to copy it, so it needs the file itself. Save it to a file and give that path. Nothing was changed.`,
    );
}

type Label = BackupLabel;

/**
 * How much readBackup checks: everything (`all`, what inspecting a backup says); all but the digest
 * (`before-copy`: a restore checks the digest, and the rows, of the copy it builds, which is what it
 * uses); or only what it is (`written`: a backup just written and checked, read back for its summary).
 */
export type BackupChecks = 'all' | 'before-copy' | 'written';

/**
 * What a backup holds, read and checked without changing anything: it must be a SQLite file that passes
 * SQLite's integrity check, carry Splitbook's label, be of a layout this Splitbook knows (a backup from a
 * newer Splitbook is refused), hold exactly Splitbook's tables with every value within its limits, and
 * match the digest it carries. Throws a problem saying which, in words.
 */
export function readBackup(file: string, checks: BackupChecks = 'all'): BackupInfo {
  requireFile(file);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch {
    throw NOT_A_BACKUP(file, 'cannot be opened as one');
  }
  try {
    // What the file's schema says is never run with the app's trust (a view or trigger is refused anyway).
    db.pragma('trusted_schema = OFF');
    if (checks !== 'written') integrityCheck(db, file);
    const label = readLabel(db, file);
    const schemaVersion = Number(db.pragma('user_version', { simple: true }));
    if (label.formatVersion > BACKUP_FORMAT_VERSION || schemaVersion > USER_SCHEMA_VERSION)
      throw problem(
        'validation',
        400,
        'Backup from a newer Splitbook',
        `${file} was made by Splitbook ${label.appVersion}, whose data is newer (layout ${schemaVersion}) than this Splitbook reads (up to ${USER_SCHEMA_VERSION}). Update Splitbook, then restore it. Nothing was changed.`,
      );
    const listed = schemaVersion >= STORE_LIST_VERSION;
    if (!listed && !hasTable(db, STORES_TABLE))
      throw NOT_A_BACKUP(file, 'is a SQLite database without the store list a backup carries');
    if (checks !== 'written')
      checkContents(db, file, schemaVersion, [
        {
          name: LABEL_TABLE,
          columns: label.formatVersion >= 2 ? LABEL_COLUMNS : LABEL_COLUMNS_V1,
        },
        ...(label.formatVersion < 2 ? [{ name: STORES_TABLE, columns: STORES_COLUMNS }] : []),
      ]);
    // Format 2 carries a digest: the rows must be those it was made from.
    if (
      checks === 'all' &&
      label.formatVersion >= 2 &&
      label.digest !== contentDigest(db, schemaVersion)
    )
      throw digestMismatch(file);
    // The table's CHECK constraints (and checkOlderStoreList for format 1) hold kind and key storage.
    const stores = backupStores(db, listed ? 'stores' : STORES_TABLE) as BackupStore[];
    return {
      file,
      createdAt: label.createdAt,
      appVersion: label.appVersion,
      schemaVersion,
      stores,
      counts: backupCounts(db),
      bytes: statSync(file).size,
      digest: label.formatVersion >= 2 ? label.digest : null,
    };
  } finally {
    db.close();
  }
}

/** SQLite's full integrity check: a file that is not a database, or a damaged one, refused in words. */
function integrityCheck(db: Database.Database, file: string): void {
  let check: unknown;
  try {
    check = db.pragma('integrity_check', { simple: true });
  } catch (error) {
    const code = error instanceof Database.SqliteError ? error.code : '';
    if (code === 'SQLITE_NOTADB') throw NOT_A_BACKUP(file, 'is not a SQLite database');
    throw damaged(file, error instanceof Error ? error.message : String(error));
  }
  if (check !== 'ok') throw damaged(file, String(check));
}

function readLabel(db: Database.Database, file: string): Label {
  if (!hasTable(db, LABEL_TABLE))
    throw NOT_A_BACKUP(file, 'is a SQLite database without the label a backup carries');
  const label = readLabelRow(db, LABEL_TABLE);
  if (!label || label.format !== BACKUP_FORMAT)
    throw NOT_A_BACKUP(file, 'is a SQLite database without the label a backup carries');
  if (label.formatVersion >= 2 && typeof label.digest !== 'string') throw digestMismatch(file);
  return label;
}

/** The schema and the rows, as a restore may take them in; a refusal names what does not fit. */
function checkContents(
  db: Database.Database,
  file: string,
  version: number,
  extras: readonly ExtraTable[],
): void {
  try {
    checkShape(db, version, extras);
    checkRows(db, version);
    if (extras.some((extra) => extra.name === STORES_TABLE)) checkOlderStoreList(db, STORES_TABLE);
  } catch (error) {
    if (error instanceof UnfitBackup) throw unfit(file, error.message);
    throw error;
  }
}

function damaged(file: string, detail: string): ProblemError {
  return problem(
    'corrupt',
    422,
    'The backup is damaged',
    `${file} fails SQLite's integrity check (${detail}). Use another backup. Nothing was changed.`,
  );
}
