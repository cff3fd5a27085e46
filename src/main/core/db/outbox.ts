// The outbox in the user's own file: unsent edits and creates, the server's copy of the records they
// change, and whether a store's key turned out to be read-only. The source of truth for unsent work.
import { Problem } from '../../../shared/problem';
import { statement } from './statements';
import { hasUserData } from './user-data/attached';
import type { Db } from './types';

export const OUTBOX_KINDS = ['test', 'campaign', 'tag', 'audience'] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];
export const OUTBOX_STATES = ['queued', 'sending', 'waiting', 'failed', 'conflict'] as const;
export type OutboxState = (typeof OUTBOX_STATES)[number];

/** A field both sides changed since the base: held until the user picks. */
export type FieldConflict = { base: unknown; mine: unknown; theirs: unknown };
/** What a conflict holds: fields, or a campaign that left the active list (it cannot be re-read). */
export type ConflictRecord = {
  fields: Record<string, FieldConflict>;
  /** The record's updatedAt on the server when the conflict was found (tests). */
  theirsUpdatedAt: string | null;
  gone: boolean;
};

export type OutboxRow = {
  seq: number;
  storeId: string;
  kind: OutboxKind;
  recordId: string;
  changes: Record<string, unknown>;
  base: Record<string, unknown>;
  baseUpdatedAt: string | null;
  state: OutboxState;
  attemptedAt: string | null;
  forceSend: boolean;
  note: string | null;
  problem: Problem | null;
  conflict: ConflictRecord | null;
  createdAt: string;
  updatedAt: string;
};

type DbRow = {
  seq: number;
  store_id: string;
  kind: OutboxKind;
  record_id: string;
  changes_json: string;
  base_json: string;
  base_updated_at: string | null;
  state: OutboxState;
  attempted_at: string | null;
  force_send: number;
  note: string | null;
  problem_json: string | null;
  conflict_json: string | null;
  created_at: string;
  updated_at: string;
};

function toRow(row: DbRow): OutboxRow {
  return {
    seq: row.seq,
    storeId: row.store_id,
    kind: row.kind,
    recordId: row.record_id,
    changes: JSON.parse(row.changes_json) as Record<string, unknown>,
    base: JSON.parse(row.base_json) as Record<string, unknown>,
    baseUpdatedAt: row.base_updated_at,
    state: row.state,
    attemptedAt: row.attempted_at,
    forceSend: row.force_send === 1,
    note: row.note,
    problem:
      row.problem_json === null
        ? null
        : (Problem.safeParse(JSON.parse(row.problem_json)).data ?? null),
    conflict: row.conflict_json === null ? null : (JSON.parse(row.conflict_json) as ConflictRecord),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type NewOutboxRow = {
  storeId: string;
  kind: OutboxKind;
  recordId: string;
  changes: Record<string, unknown>;
  base: Record<string, unknown>;
  baseUpdatedAt: string | null;
  now: string;
  state?: OutboxState;
  conflict?: ConflictRecord | null;
  attemptedAt?: string | null;
  forceSend?: boolean;
};

const INSERT = `
  INSERT INTO user.outbox (store_id, kind, record_id, changes_json, base_json, base_updated_at, state,
                           conflict_json, attempted_at, force_send, created_at, updated_at)
  VALUES (@storeId, @kind, @recordId, @changes, @base, @baseUpdatedAt, @state, @conflict, @attemptedAt,
          @forceSend, @now, @now)`;

/** Appends one edit or create; returns its seq. */
export function appendOutbox(db: Db, row: NewOutboxRow): number {
  const info = statement(db, INSERT).run({
    storeId: row.storeId,
    kind: row.kind,
    recordId: row.recordId,
    changes: JSON.stringify(row.changes),
    base: JSON.stringify(row.base),
    baseUpdatedAt: row.baseUpdatedAt,
    state: row.state ?? 'queued',
    conflict: row.conflict ? JSON.stringify(row.conflict) : null,
    attemptedAt: row.attemptedAt ?? null,
    forceSend: row.forceSend ? 1 : 0,
    now: row.now,
  });
  return Number(info.lastInsertRowid);
}

const SELECT_ALL = `SELECT * FROM user.outbox WHERE (@storeId IS NULL OR store_id = @storeId) ORDER BY seq`;
const SELECT_RECORD = `SELECT * FROM user.outbox WHERE store_id = ? AND kind = ? AND record_id = ? ORDER BY seq`;
const SELECT_SEQ = `SELECT * FROM user.outbox WHERE seq = ?`;

const attached = new WeakMap<Db, boolean>();

/** Whether the user's file is attached: a cache opened on its own (tools, some tests) has no outbox. */
export function hasOutbox(db: Db): boolean {
  let known = attached.get(db);
  if (known === undefined) {
    known =
      db.prepare(`SELECT 1 FROM pragma_database_list WHERE name = 'user'`).get() !== undefined;
    attached.set(db, known);
  }
  return known;
}

/** Every outbox row of one store (or all), oldest first. */
export function outboxRows(db: Db, storeId: string | null): OutboxRow[] {
  if (!hasOutbox(db)) return [];
  return statement<DbRow>(db, SELECT_ALL).all({ storeId }).map(toRow);
}

export function recordRows(
  db: Db,
  storeId: string,
  kind: OutboxKind,
  recordId: string,
): OutboxRow[] {
  return statement<DbRow>(db, SELECT_RECORD).all(storeId, kind, recordId).map(toRow);
}

export function outboxRow(db: Db, seq: number): OutboxRow | null {
  const row = statement<DbRow>(db, SELECT_SEQ).get(seq);
  return row ? toRow(row) : null;
}

export type OutboxStatePatch = {
  state?: OutboxState;
  problem?: Problem | null;
  conflict?: ConflictRecord | null;
  note?: string | null;
  attemptedAt?: string | null;
  forceSend?: boolean;
  changes?: Record<string, unknown>;
  base?: Record<string, unknown>;
  baseUpdatedAt?: string | null;
  recordId?: string;
  now: string;
};

/** Changes the given columns of these rows; a key left out keeps its value. */
export function updateOutbox(db: Db, seqs: readonly number[], patch: OutboxStatePatch): void {
  const sets: string[] = ['updated_at = @now'];
  const params: Record<string, unknown> = { now: patch.now };
  const put = (column: string, key: string, value: unknown) => {
    sets.push(`${column} = @${key}`);
    params[key] = value;
  };
  if (patch.state !== undefined) put('state', 'state', patch.state);
  if (patch.problem !== undefined)
    put('problem_json', 'problem', patch.problem === null ? null : JSON.stringify(patch.problem));
  if (patch.conflict !== undefined)
    put(
      'conflict_json',
      'conflict',
      patch.conflict === null ? null : JSON.stringify(patch.conflict),
    );
  if (patch.note !== undefined) put('note', 'note', patch.note);
  if (patch.attemptedAt !== undefined) put('attempted_at', 'attemptedAt', patch.attemptedAt);
  if (patch.forceSend !== undefined) put('force_send', 'forceSend', patch.forceSend ? 1 : 0);
  if (patch.changes !== undefined) put('changes_json', 'changes', JSON.stringify(patch.changes));
  if (patch.base !== undefined) put('base_json', 'base', JSON.stringify(patch.base));
  if (patch.baseUpdatedAt !== undefined)
    put('base_updated_at', 'baseUpdatedAt', patch.baseUpdatedAt);
  if (patch.recordId !== undefined) put('record_id', 'recordId', patch.recordId);
  const sql = `UPDATE user.outbox SET ${sets.join(', ')} WHERE seq IN (SELECT value FROM json_each(@seqs))`;
  statement(db, sql).run({ ...params, seqs: JSON.stringify(seqs) });
}

export function deleteOutbox(db: Db, seqs: readonly number[]): void {
  statement(db, `DELETE FROM user.outbox WHERE seq IN (SELECT value FROM json_each(?))`).run(
    JSON.stringify(seqs),
  );
}

/** Pending counts of a store for its summary. */
export function outboxCounts(
  db: Db,
  storeId: string,
): { pending: number; failed: number; conflicts: number } {
  // A read-only data folder may leave the user's file unattached: then nothing waits to be sent.
  if (!hasUserData(db)) return { pending: 0, failed: 0, conflicts: 0 };
  const row = statement<{ pending: number; failed: number; conflicts: number }>(
    db,
    `SELECT count(DISTINCT kind || ':' || record_id) AS pending,
            count(DISTINCT CASE WHEN state = 'failed' THEN kind || ':' || record_id END) AS failed,
            count(DISTINCT CASE WHEN state = 'conflict' THEN kind || ':' || record_id END) AS conflicts
     FROM user.outbox WHERE store_id = ?`,
  ).get(storeId);
  return row ?? { pending: 0, failed: 0, conflicts: 0 };
}

export function deleteStoreOutbox(db: Db, storeId: string): void {
  statement(db, `DELETE FROM user.outbox WHERE store_id = ?`).run(storeId);
  statement(db, `DELETE FROM user.server_copies WHERE store_id = ?`).run(storeId);
  statement(db, `DELETE FROM user.store_keys WHERE store_id = ?`).run(storeId);
}

// ---------- the server's copy under pending edits ----------

export type CopyKind = 'test' | 'campaign';

export function serverCopy(db: Db, storeId: string, kind: CopyKind, recordId: string): unknown {
  const row = statement<{ raw_json: string }>(
    db,
    `SELECT raw_json FROM user.server_copies WHERE store_id = ? AND kind = ? AND record_id = ?`,
  ).get(storeId, kind, recordId);
  return row ? (JSON.parse(row.raw_json) as unknown) : undefined;
}

export function saveServerCopy(
  db: Db,
  storeId: string,
  kind: CopyKind,
  recordId: string,
  record: unknown,
): void {
  statement(
    db,
    `INSERT OR REPLACE INTO user.server_copies (store_id, kind, record_id, raw_json) VALUES (?, ?, ?, ?)`,
  ).run(storeId, kind, recordId, JSON.stringify(record));
}

export function deleteServerCopy(db: Db, storeId: string, kind: CopyKind, recordId: string): void {
  statement(
    db,
    `DELETE FROM user.server_copies WHERE store_id = ? AND kind = ? AND record_id = ?`,
  ).run(storeId, kind, recordId);
}

/** Records that have a server copy but no pending row any more (a crash between two writes). */
export function orphanServerCopies(
  db: Db,
): { storeId: string; kind: CopyKind; recordId: string }[] {
  return statement<{ storeId: string; kind: CopyKind; recordId: string }>(
    db,
    `SELECT c.store_id AS storeId, c.kind, c.record_id AS recordId FROM user.server_copies c
     WHERE NOT EXISTS (SELECT 1 FROM user.outbox o
                       WHERE o.store_id = c.store_id AND o.kind = c.kind AND o.record_id = c.record_id)`,
  ).all();
}

// ---------- what the store taught about its key ----------

export function markReadOnly(db: Db, storeId: string, reason: string, at: string): void {
  statement(
    db,
    `INSERT OR REPLACE INTO user.store_keys (store_id, read_only_reason, read_only_at) VALUES (?, ?, ?)`,
  ).run(storeId, reason, at);
}

export function clearReadOnly(db: Db, storeId: string): void {
  statement(db, `DELETE FROM user.store_keys WHERE store_id = ?`).run(storeId);
}

export function readOnlyReason(db: Db, storeId: string): string | null {
  if (!hasUserData(db)) return null;
  return (
    statement<{ r: string | null }>(
      db,
      `SELECT read_only_reason AS r FROM user.store_keys WHERE store_id = ?`,
    ).get(storeId)?.r ?? null
  );
}
