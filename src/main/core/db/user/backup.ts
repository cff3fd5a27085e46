// The SQL of a backup and a restore, run on copies of the user's file (the backup file, the restore's
// staged file, a layout built in memory): their schema read, tables copied between attached files, rows
// measured and read in key order for the digest, the label a backup carries. Table and column names come
// from the user file's own schema (sqlite_master, pragma_table_xinfo) and are quoted as identifiers.
import type Database from 'better-sqlite3';

type Conn = Database.Database;

/** An identifier quoted for SQL (names here come from SQLite's own catalogue). */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A schema object as sqlite_master lists it. */
export type SchemaObject = { type: string; name: string };

/** A column as SQLite reports it (pragma table_xinfo). */
export type ColumnShape = { name: string; type: string; notnull: number; pk: number };

/** Attaches the database file `file` (or ':memory:') as `schema`. */
export function attach(db: Conn, file: string, schema: string): void {
  db.prepare(`ATTACH DATABASE ? AS ${schema}`).run(file);
}

export function detach(db: Conn, schema: string): void {
  db.exec(`DETACH DATABASE ${schema}`);
}

/** Every object of `schema` (tables, indexes, triggers, views), SQLite's own included, by type and name. */
export function schemaObjects(db: Conn, schema: string): SchemaObject[] {
  return db
    .prepare(`SELECT type, name FROM ${quoted(schema)}.sqlite_master ORDER BY type, name`)
    .all() as SchemaObject[];
}

/** The objects of the main schema beside SQLite's own. */
export function ownObjects(db: Conn): SchemaObject[] {
  return db
    .prepare(`SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'`)
    .all() as SchemaObject[];
}

/** A table's columns in order, hidden ones included. */
export function tableColumns(db: Conn, schema: string, table: string): ColumnShape[] {
  return db
    .prepare(
      `SELECT name, upper(type) AS type, "notnull" AS "notnull", pk FROM pragma_table_xinfo(@table, @schema) ORDER BY cid`,
    )
    .all({ table, schema }) as ColumnShape[];
}

/** Whether `name` is a table of the main schema (or of `schema`). */
export function hasTable(db: Conn, name: string, schema = 'main'): boolean {
  return (
    db
      .prepare(
        `SELECT 1 FROM ${quoted(schema)}.sqlite_master WHERE type = 'table' AND name = @name`,
      )
      .get({ name }) !== undefined
  );
}

/** Whether the main schema's `table` has the column `column`. */
export function hasColumn(db: Conn, table: string, column: string): boolean {
  return (
    db
      .prepare(`SELECT 1 FROM pragma_table_info(@table) WHERE name = @column`)
      .get({ table, column }) !== undefined
  );
}

/** Drops a table, index, trigger or view of the main schema. */
export function dropObject(db: Conn, object: SchemaObject): void {
  db.exec(`DROP ${object.type.toUpperCase()} IF EXISTS ${quoted(object.name)}`);
}

/** Rewrites the file without its free pages (what a DROP left). */
export function vacuum(db: Conn): void {
  db.exec('VACUUM');
}

/** The column list and key order of a table for SQL: its columns quoted, its key (or rowid). */
function namesAndOrder(columns: readonly string[], key: readonly string[]) {
  return {
    names: columns.map((c) => `"${c}"`).join(', '),
    order: key.length > 0 ? key.map((k) => `"${k}"`).join(', ') : 'rowid',
  };
}

/** Copies every row of `from`.`table` into `to`.`table`, in key order. */
export function copyTableRows(
  db: Conn,
  table: string,
  columns: readonly string[],
  key: readonly string[],
  schemas: { from: string; to: string },
): void {
  const { names, order } = namesAndOrder(columns, key);
  db.exec(
    `INSERT INTO ${schemas.to}."${table}" (${names}) SELECT ${names} FROM ${schemas.from}."${table}" ORDER BY ${order}`,
  );
}

/**
 * AUTOINCREMENT's counters of the `known` tables carried from `from` into `to` (each the larger of the
 * two), when both keep counters, so no id of a row since deleted is given again.
 */
export function carryCounters(
  db: Conn,
  known: readonly string[],
  schemas: { from: string; to: string },
): void {
  const { from, to } = schemas;
  if (!hasTable(db, 'sqlite_sequence', from) || !hasTable(db, 'sqlite_sequence', to)) return;
  db.prepare(
    `UPDATE ${to}.sqlite_sequence AS s SET seq = max(s.seq, b.seq)
     FROM ${from}.sqlite_sequence AS b WHERE b.name = s.name AND typeof(b.seq) = 'integer'`,
  ).run();
  db.prepare(
    `INSERT INTO ${to}.sqlite_sequence (name, seq)
     SELECT b.name, b.seq FROM ${from}.sqlite_sequence AS b
     WHERE b.name IN (SELECT value FROM json_each(?)) AND typeof(b.seq) = 'integer'
       AND b.name NOT IN (SELECT name FROM ${to}.sqlite_sequence)`,
  ).run(JSON.stringify(known));
}

/** The longest value (by SQLite's length) of each of `columns` of a table, as c0, c1, …, measured by SQLite. */
export function longestValues(
  db: Conn,
  schema: string,
  table: string,
  columns: readonly string[],
): Record<string, number | null> {
  return db
    .prepare(
      `SELECT ${columns.map((c, i) => `max(length("${c}")) AS c${i}`).join(', ')} FROM "${schema}"."${table}"`,
    )
    .get() as Record<string, number | null>;
}

/** How many values of a column are not JSON SQLite reads. */
export function unreadableJsonCount(
  db: Conn,
  schema: string,
  table: string,
  column: string,
): number {
  return (
    db
      .prepare(
        `SELECT count(*) AS n FROM "${schema}"."${table}" WHERE "${column}" IS NOT NULL AND NOT json_valid("${column}")`,
      )
      .get() as { n: number }
  ).n;
}

/**
 * An older backup's store list measured: the longest value of each of `columns` (c0, c1, …), of the id,
 * and how many stores have a kind or key storage Splitbook does not list (odd).
 */
export function olderStoreListLengths(
  db: Conn,
  table: string,
  columns: readonly string[],
): Record<string, number | null> {
  return db
    .prepare(
      `SELECT ${columns.map((c, i) => `max(length("${c}")) AS c${i}`).join(', ')},
              max(length(id)) AS id,
              sum(kind NOT IN ('api', 'demo') OR key_storage NOT IN ('keychain', 'session', 'none')) AS odd
       FROM "${table}"`,
    )
    .get() as Record<string, number | null>;
}

/** An unsent edit as a backup's check reads it: its changes and the JSON types of its changes and base. */
export type OutboxCheckRow = {
  seq: number;
  kind: string;
  changes: string;
  changesType: string | null;
  baseType: string | null;
};

/** Every unsent edit of `schema`'s outbox, oldest first. */
export function outboxCheckRows(db: Conn, schema: string): IterableIterator<OutboxCheckRow> {
  return db
    .prepare(
      `SELECT seq, kind, changes_json AS changes, json_type(changes_json) AS changesType,
              json_type(base_json) AS baseType FROM "${schema}".outbox ORDER BY seq`,
    )
    .iterate() as IterableIterator<OutboxCheckRow>;
}

/**
 * Every row of a table in key order, as arrays of values as SQLite hands them over (integers as BigInt):
 * what the digest reads.
 */
export function tableRowsInKeyOrder(
  db: Conn,
  schema: string,
  table: string,
  columns: readonly string[],
  key: readonly string[],
): IterableIterator<unknown[]> {
  const { names, order } = namesAndOrder(columns, key);
  return db
    .prepare(`SELECT ${names} FROM "${schema}"."${table}" ORDER BY ${order}`)
    .raw(true)
    .safeIntegers(true)
    .iterate() as IterableIterator<unknown[]>;
}

/** A backup's label: what it is, when and by which Splitbook it was made, its layout and digest. */
export type BackupLabel = {
  format: string;
  formatVersion: number;
  createdAt: string;
  appVersion: string;
  schemaVersion: number;
  digest: string | null;
};

/** Writes the label table `table` into a backup's copy, holding its one row. */
export function writeLabel(db: Conn, table: string, label: BackupLabel & { digest: string }): void {
  db.exec(`
CREATE TABLE ${table} (
  format         TEXT NOT NULL,
  format_version INTEGER NOT NULL,
  created_at     TEXT NOT NULL,
  app_version    TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  digest         TEXT NOT NULL
) STRICT;`);
  db.prepare(
    `INSERT INTO ${table} (format, format_version, created_at, app_version, schema_version, digest)
     VALUES (@format, @formatVersion, @createdAt, @appVersion, @schemaVersion, @digest)`,
  ).run({
    format: label.format,
    formatVersion: label.formatVersion,
    createdAt: label.createdAt,
    appVersion: label.appVersion,
    schemaVersion: label.schemaVersion,
    digest: label.digest,
  });
}

/** The label's row (a format 1 label has no digest: null), or undefined when the table has none. */
export function readLabelRow(db: Conn, table: string): BackupLabel | undefined {
  const digest = hasColumn(db, table, 'digest') ? 'digest' : 'NULL';
  return db
    .prepare(
      `SELECT format, format_version AS formatVersion, created_at AS createdAt,
              app_version AS appVersion, schema_version AS schemaVersion,
              ${digest} AS digest FROM ${table}`,
    )
    .get() as BackupLabel | undefined;
}

/** A store as a backup lists it. */
export type BackupStoreRow = {
  id: string;
  name: string;
  baseUrl: string;
  kind: string;
  keyStorage: string;
  createdAt: string;
  position: number;
};

/** The stores of a backup's list (`table`: the user's list, or an older backup's own), in the list's order. */
export function backupStores(db: Conn, table: string): BackupStoreRow[] {
  return db
    .prepare(
      `SELECT id, name, base_url AS baseUrl, kind, key_storage AS keyStorage,
              created_at AS createdAt, position FROM ${table}
       ORDER BY position, created_at, id`,
    )
    .all() as BackupStoreRow[];
}

/** What the user made, counted in a backup: records waiting in the outbox, notes, annotations, takeaways. */
export function backupCounts(db: Conn): {
  pendingEdits: number;
  notes: number;
  annotations: number;
  takeaways: number;
} {
  const count = (table: string, sql: string) =>
    hasTable(db, table) ? ((db.prepare(sql).get() as { n: number } | undefined)?.n ?? 0) : 0;
  return {
    pendingEdits: count(
      'outbox',
      `SELECT count(*) AS n FROM (SELECT DISTINCT store_id, kind, record_id FROM outbox)`,
    ),
    notes: count('notes', `SELECT count(*) AS n FROM notes`),
    annotations: count('store_annotations', `SELECT count(*) AS n FROM store_annotations`),
    takeaways: count('takeaways', `SELECT count(*) AS n FROM takeaways`),
  };
}
