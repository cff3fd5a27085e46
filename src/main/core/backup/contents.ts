// What a backup may hold, and its digest. Its tables must be the user file's exactly as this Splitbook's
// migrations make them at the backup's layout (nothing foreign: no other table, index, trigger or view);
// every value within the limits the app keeps when the user types it; every JSON value readable; every
// unsent edit one the API's schema takes. The digest is a SHA-256 of every row of those tables, so a byte
// changed since the backup was made (which SQLite's integrity check does not see inside a value) is found.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import {
  CreateCustomAudienceBody,
  CreateTagBody,
  UpdateCampaignBody,
  UpdateTestBody,
} from '#shared/api/index';
import { MAX_ANNOTATION_LENGTH, MAX_NOTE_LENGTH } from '#shared/contract/notes';
import { MAX_TAKEAWAY_LENGTH } from '#shared/contract/programme';
import { MAX_BASE_URL_LENGTH, MAX_STORE_NAME_LENGTH } from '#shared/contract/stores';
import { StoreId } from '#shared/contract/common';
import { edits } from '#shared/contract/edits';
import { summarizeIssues } from '#shared/validation';
import { DEFAULT_MAX_BYTES } from '../api/client';
import { migrate } from '../db/cache/migrations';
import {
  attach,
  longestValues,
  olderStoreListLengths,
  outboxCheckRows,
  schemaObjects,
  tableColumns,
  tableRowsInKeyOrder,
  unreadableJsonCount,
  type ColumnShape,
} from '../db/user/backup';
import { USER_DATA_MIGRATIONS } from '../db/user/migrations/migrations';

/** A table's columns as SQLite reports them (pragma table_xinfo), and its key in order. */
export type TableShape = {
  columns: ColumnShape[];
  key: string[];
};

/** The user file's schema at one layout: its tables and the names of its indexes. */
export type UserShape = { tables: Map<string, TableShape>; indexes: Set<string> };

/** The schema a database holds under `schema`: its tables (SQLite's own left out) and its other objects. */
function readShape(db: Database.Database, schema: string) {
  const objects = schemaObjects(db, schema);
  const tables = new Map<string, TableShape>();
  for (const { name } of objects.filter((o) => o.type === 'table' && !isInternal(o.name))) {
    const columns = tableColumns(db, schema, name);
    const key = columns
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    tables.set(name, { columns, key });
  }
  return { tables, objects };
}

/** SQLite's own tables (AUTOINCREMENT's counters, ANALYZE's statistics): never the user's data. */
function isInternal(name: string): boolean {
  return name.startsWith('sqlite_');
}

const shapes = new Map<number, UserShape>();

/** The user file's schema as the migrations up to `version` make it (built once per layout, in memory). */
export function userShape(version: number): UserShape {
  const known = shapes.get(version);
  if (known) return known;
  const db = new Database(':memory:');
  try {
    attach(db, ':memory:', 'user');
    migrate(db, USER_DATA_MIGRATIONS.slice(0, version), 'user');
    const { tables, objects } = readShape(db, 'user');
    const shape: UserShape = {
      tables,
      indexes: new Set(objects.filter((o) => o.type === 'index').map((o) => o.name)),
    };
    shapes.set(version, shape);
    return shape;
  } finally {
    db.close();
  }
}

/** Why a backup cannot be restored, in words; the caller adds the file and "Nothing was changed". */
export class UnfitBackup extends Error {}

/** A table beside the user's that a backup's own format adds (its label, an older one's store list). */
export type ExtraTable = { name: string; columns: readonly string[] };

/**
 * Refuses a backup whose schema is not the user file's at `version` plus `extras`: a table, index,
 * trigger or view Splitbook does not make, a table missing, or a table whose columns differ.
 */
export function checkShape(
  db: Database.Database,
  version: number,
  extras: readonly ExtraTable[],
): void {
  const expected = userShape(version);
  const found = readShape(db, 'main');
  for (const object of found.objects) {
    if (isInternal(object.name)) continue;
    if (object.type === 'trigger' || object.type === 'view')
      throw new UnfitBackup(`holds a ${object.type} (${object.name}) Splitbook never makes`);
    if (object.type === 'index' && !expected.indexes.has(object.name))
      throw new UnfitBackup(`holds an index (${object.name}) Splitbook does not make`);
    if (object.type !== 'table') continue;
    const mine = expected.tables.get(object.name);
    const extra = extras.find((e) => e.name === object.name);
    const theirs = found.tables.get(object.name);
    if (!theirs) continue;
    if (mine) {
      if (!sameColumns(mine, theirs))
        throw new UnfitBackup(`has a table ${object.name} unlike the one Splitbook makes`);
    } else if (extra) {
      if (theirs.columns.map((c) => c.name).join() !== extra.columns.join())
        throw new UnfitBackup(`has a table ${object.name} unlike the one a backup carries`);
    } else {
      throw new UnfitBackup(`holds a table (${object.name}) that is not Splitbook's`);
    }
  }
  for (const name of expected.tables.keys())
    if (!found.tables.has(name)) throw new UnfitBackup(`lacks the table ${name}`);
}

function sameColumns(a: TableShape, b: TableShape): boolean {
  return JSON.stringify(a.columns) === JSON.stringify(b.columns);
}

/** The largest value any column may hold: the largest answer Splitbook reads from a store. */
export const VALUE_MAX = DEFAULT_MAX_BYTES;
/** A store's id, as the contract takes it. */
const STORE_ID_MAX = StoreId.maxLength ?? 64;

/** The user's own texts, as long as the app lets them be typed; the words a refusal names them by. */
const LIMITS: readonly { table: string; column: string; max: number; what: string }[] = [
  { table: 'notes', column: 'body', max: MAX_NOTE_LENGTH, what: 'a note' },
  {
    table: 'store_annotations',
    column: 'label',
    max: MAX_ANNOTATION_LENGTH,
    what: 'an annotation',
  },
  { table: 'takeaways', column: 'text', max: MAX_TAKEAWAY_LENGTH, what: 'a takeaway' },
  { table: 'stores', column: 'name', max: MAX_STORE_NAME_LENGTH, what: "a store's name" },
  { table: 'stores', column: 'base_url', max: MAX_BASE_URL_LENGTH, what: "a store's address" },
  { table: 'stores', column: 'id', max: STORE_ID_MAX, what: "a store's id" },
];

/** Columns holding JSON text, beside every `*_json` one. */
const JSON_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  settings: ['value'],
  test_state: ['state'],
  test_snapshots: ['state', 'changes'],
  decision_overrides: ['overrides'],
  decision_history: ['before'],
  change_nets: ['first_from', 'last_to', 'mark_from'],
};

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Refuses a value over its limit (a note over the note limit, any value over VALUE_MAX), JSON that does
 * not parse, and an unsent edit or create the API would not take. Lengths are measured by SQLite, so a
 * value too large is never read into memory here.
 */
export function checkRows(db: Database.Database, version: number, schema = 'main'): void {
  const shape = userShape(version);
  for (const [table, { columns }] of shape.tables) {
    const sized = columns.filter((c) => c.type === 'TEXT' || c.type === 'BLOB' || c.type === 'ANY');
    if (sized.length > 0) {
      const longest = longestValues(
        db,
        schema,
        table,
        sized.map((c) => c.name),
      );
      sized.forEach((column, i) => {
        const length = longest[`c${i}`] ?? 0;
        const limit = LIMITS.find((l) => l.table === table && l.column === column.name);
        const max = limit?.max ?? VALUE_MAX;
        if (length > max) {
          const what = limit?.what ?? `a value (${table}.${column.name})`;
          throw new UnfitBackup(
            `holds ${what} of ${count(length)} characters, where Splitbook keeps at most ${count(max)}`,
          );
        }
      });
    }
    const json = columns
      .map((c) => c.name)
      .filter((name) => name.endsWith('_json') || (JSON_COLUMNS[table] ?? []).includes(name));
    for (const column of json) {
      const bad = unreadableJsonCount(db, schema, table, column);
      if (bad > 0)
        throw new UnfitBackup(`holds ${count(bad)} unreadable value(s) in ${table}.${column}`);
    }
  }
  if (shape.tables.has('outbox')) checkOutbox(db, schema);
}

/**
 * An older backup's store list (format 1's table of its own): each store as the user's list would take
 * it, within the same limits, so it is refused here rather than half-way through a restore.
 */
export function checkOlderStoreList(db: Database.Database, table: string): void {
  const limits = LIMITS.filter((l) => l.table === 'stores');
  const longest = olderStoreListLengths(
    db,
    table,
    limits.map((l) => l.column),
  );
  limits.forEach((limit, i) => {
    const length = longest[`c${i}`] ?? 0;
    if (length > limit.max)
      throw new UnfitBackup(
        `holds ${limit.what} of ${count(length)} characters, where Splitbook keeps at most ${count(limit.max)}`,
      );
  });
  if ((longest['id'] ?? 0) > STORE_ID_MAX || (longest['odd'] ?? 0) > 0)
    throw new UnfitBackup('holds a store Splitbook would not list');
}

/** What the API takes as each kind's request: an unsent edit or create must be one. */
const BODIES = {
  test: UpdateTestBody,
  campaign: UpdateCampaignBody,
  // A name as the window and the CLI take it when the user types it.
  tag: CreateTagBody.extend({ name: edits.createTag.input.shape.name }),
  audience: CreateCustomAudienceBody.extend({ name: edits.createAudience.input.shape.name }),
} as const;

function checkOutbox(db: Database.Database, schema: string): void {
  for (const row of outboxCheckRows(db, schema)) {
    if (row.changesType !== 'object' || row.baseType !== 'object')
      throw new UnfitBackup(`holds an unsent edit (${row.seq}) that is not one Splitbook makes`);
    const schema = BODIES[row.kind as keyof typeof BODIES];
    const parsed = schema.safeParse(JSON.parse(row.changes));
    if (!parsed.success)
      throw new UnfitBackup(
        `holds an unsent ${row.kind} edit the store would not take (${summarizeIssues(parsed.error.issues)})`,
      );
  }
}

/**
 * One value in the digest's text: its type (read from what SQLite hands over: an integer as a BigInt, a
 * real as a number, text as a string, a blob as bytes), then the value exactly, text with its length so
 * no two rows read alike. A real's shortest round-trip decimal is exact (JavaScript's own rule).
 */
function encode(value: unknown): string {
  if (value === null) return 'n;';
  if (typeof value === 'bigint') return `i${value.toString()};`;
  if (typeof value === 'number') return `r${Object.is(value, -0) ? '-0' : String(value)};`;
  if (typeof value === 'string') return `s${value.length}:${value}`;
  if (Buffer.isBuffer(value)) return `b${value.length}:${value.toString('hex')}`;
  return `?${String(value)};`;
}

/** Text handed to the hash at once: one update per row cost as much as the rows' reading. */
const CHUNK = 256 * 1024;

/**
 * The SHA-256 (hex) of every row of the user file's tables at `version` in `db` (schema `schema`): each
 * table by name, its columns' names, then its rows in key order, each value by its type and exactly (text
 * as read, integers exactly, reals as their round-trip decimal). A byte changed in a text that was valid
 * UTF-8 changes the text read, so it changes the digest too. Tables outside the layout (a backup's
 * label) are left out.
 */
export function contentDigest(db: Database.Database, version: number, schema = 'main'): string {
  const hash = createHash('sha256');
  let pending = '';
  const add = (text: string) => {
    pending += text;
    if (pending.length >= CHUNK) {
      hash.update(pending, 'utf8');
      pending = '';
    }
  };
  const tables = [...userShape(version).tables].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [table, { columns, key }] of tables) {
    add(`T${encode(table)}${columns.map((c) => encode(c.name)).join('')}`);
    const rows = tableRowsInKeyOrder(
      db,
      schema,
      table,
      columns.map((c) => c.name),
      key,
    );
    for (const row of rows) {
      let line = 'R';
      for (const value of row) line += encode(value);
      add(line);
    }
  }
  hash.update(pending, 'utf8');
  return hash.digest('hex');
}
