// The outbox's storage in the user's own file: unsent edits and creates (user.outbox), the server's copy
// of the records they change (user.server_copies), and what a store taught about its key (user.store_keys).
import { Problem } from '#shared/problem';
import { deleteSentEdits } from '../db/user/sent-edits';
import { statement } from '../db/statements';
import type { Db } from '../db/types';
import { hasUserData } from '../db/user/attached';
import {
  collapse,
  groupRecords,
  isSendable,
  remapLocalId,
  type ConflictRecord,
  type CreateKind,
  type OutboxKind,
  type OutboxRow,
  type OutboxState,
  type PendingRecord,
  type RowPatch,
} from './model';

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

/** Every outbox row of one store (or all), oldest first; none when the user's file is not attached. */
export function outboxRows(db: Db, storeId: string | null): OutboxRow[] {
  if (!hasUserData(db)) return [];
  return statement<DbRow>(db, SELECT_ALL).all({ storeId }).map(toRow);
}

export function outboxRow(db: Db, seq: number): OutboxRow | null {
  const row = statement<DbRow>(db, SELECT_SEQ).get(seq);
  return row ? toRow(row) : null;
}

/** The pending records of one store (or all), in the order of their first edit. */
export function pendingRecords(db: Db, storeId: string | null): PendingRecord[] {
  return groupRecords(outboxRows(db, storeId));
}

/** One record's rows merged, or null when nothing of it is pending. */
export function pendingRecord(
  db: Db,
  storeId: string,
  kind: OutboxKind,
  recordId: string,
): PendingRecord | null {
  return collapse(statement<DbRow>(db, SELECT_RECORD).all(storeId, kind, recordId).map(toRow));
}

/** Ids of one kind with pending rows in a store. */
export function pendingIds(db: Db, storeId: string, kind: OutboxKind): Set<string> {
  return new Set(
    outboxRows(db, storeId)
      .filter((row) => row.kind === kind)
      .map((row) => row.recordId),
  );
}

/** Whether the store has a record the pusher would try (see isSendable). */
export function hasSendable(db: Db, storeId: string): boolean {
  return pendingRecords(db, storeId).some((record) => isSendable(record.state));
}

/** Changes the given columns of these rows; a key left out keeps its value. */
export function updateOutbox(
  db: Db,
  seqs: readonly number[],
  patch: RowPatch & { now: string },
): void {
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
  const sql = `UPDATE user.outbox SET ${sets.join(', ')} WHERE seq IN (SELECT value FROM json_each(@seqs))`;
  statement(db, sql).run({ ...params, seqs: JSON.stringify(seqs) });
}

export function deleteOutbox(db: Db, seqs: readonly number[]): void {
  statement(db, `DELETE FROM user.outbox WHERE seq IN (SELECT value FROM json_each(?))`).run(
    JSON.stringify(seqs),
  );
}

/**
 * A record's rows become one, its first, holding `content` (its merged changes and base, say); null
 * deletes the record. A conflict is held and resolved this way.
 */
export function rewriteRecord(
  db: Db,
  record: Pick<PendingRecord, 'seqs'>,
  content: RowPatch | null,
  now: string,
): void {
  const [keep, ...rest] = record.seqs;
  if (keep === undefined) return;
  deleteOutbox(db, content === null ? record.seqs : rest);
  if (content !== null) updateOutbox(db, [keep], { ...content, now });
}

/**
 * A create settled: the edits of the store that name its local id get the store's id instead (or lose
 * it, null: the create was dropped). Returns the tests whose edits changed, to be rebased.
 */
export function remapCreatedId(
  db: Db,
  storeId: string,
  kind: CreateKind,
  localId: string,
  serverId: string | null,
  now: string,
): Set<string> {
  const touched = new Set<string>();
  for (const row of outboxRows(db, storeId)) {
    const patch = remapLocalId(row, kind, localId, serverId);
    if (patch === null) continue;
    updateOutbox(db, [row.seq], { ...patch, now });
    touched.add(row.recordId);
  }
  return touched;
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
  deleteSentEdits(db, storeId);
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

/** Forgets a record's server copy (a create never has one: nothing to forget). */
export function deleteServerCopy(
  db: Db,
  storeId: string,
  kind: OutboxKind,
  recordId: string,
): void {
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
