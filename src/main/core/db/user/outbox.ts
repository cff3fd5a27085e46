// The outbox's tables in the user's own file, and only their rows: unsent edits and creates (user.outbox),
// the server's copy of the records they change (user.server_copies), and what a store taught about its key
// (user.store_keys). What the rows mean (records, merges, conflicts) is core/outbox's.
import type { EditKind, EditState } from '#shared/contract/index';
import { Problem } from '#shared/problem';
import { read, write } from '../sql';
import type { Db } from '../types';
import { hasUserData } from './attached';
import { deleteSentEdits } from './sent-edits';

/** The kinds and states are the bridge's (shared/contract/edits.ts): one list of each. */
export type OutboxKind = EditKind;
export type OutboxState = EditState;

/** A field both sides changed since the base: held until the user picks. */
export type FieldConflict = { base: unknown; mine: unknown; theirs: unknown };
/** What a conflict holds: fields, or a campaign that left the active list (it cannot be re-read). */
export type ConflictRecord = {
  fields: Record<string, FieldConflict>;
  /** The record's updatedAt on the server when the conflict was found (tests). */
  theirsUpdatedAt: string | null;
  gone: boolean;
};

/** One edit or create as the outbox keeps it. */
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

/** Columns of outbox rows to change; a key left out keeps its value. */
export type RowPatch = {
  state?: OutboxState;
  problem?: Problem | null;
  conflict?: ConflictRecord | null;
  note?: string | null;
  attemptedAt?: string | null;
  forceSend?: boolean;
  changes?: Record<string, unknown>;
  base?: Record<string, unknown>;
  baseUpdatedAt?: string | null;
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

const INSERT = write<{
  storeId: string;
  kind: OutboxKind;
  recordId: string;
  changes: string;
  base: string;
  baseUpdatedAt: string | null;
  state: OutboxState;
  conflict: string | null;
  attemptedAt: string | null;
  forceSend: number;
  now: string;
}>(`
  INSERT INTO user.outbox (store_id, kind, record_id, changes_json, base_json, base_updated_at, state,
                           conflict_json, attempted_at, force_send, created_at, updated_at)
  VALUES (@storeId, @kind, @recordId, @changes, @base, @baseUpdatedAt, @state, @conflict, @attemptedAt,
          @forceSend, @now, @now)`);

/** Appends one edit or create; returns its seq. */
export function appendOutbox(db: Db, row: NewOutboxRow): number {
  const info = INSERT.run(db, {
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

const SELECT_ALL = read<DbRow, { storeId: string | null }>(
  `SELECT * FROM user.outbox WHERE (@storeId IS NULL OR store_id = @storeId) ORDER BY seq`,
);
const SELECT_RECORD = read<DbRow, { storeId: string; kind: OutboxKind; recordId: string }>(
  `SELECT * FROM user.outbox WHERE store_id = @storeId AND kind = @kind AND record_id = @recordId ORDER BY seq`,
);
const SELECT_SEQ = read<DbRow, { seq: number }>(`SELECT * FROM user.outbox WHERE seq = @seq`);

/** Every outbox row of one store (or all), oldest first; none when the user's file is not attached. */
export function outboxRows(db: Db, storeId: string | null): OutboxRow[] {
  if (!hasUserData(db)) return [];
  return SELECT_ALL.all(db, { storeId }).map(toRow);
}

export function outboxRow(db: Db, seq: number): OutboxRow | null {
  const row = SELECT_SEQ.get(db, { seq });
  return row ? toRow(row) : null;
}

/** One record's rows, oldest first. */
export function recordRows(
  db: Db,
  storeId: string,
  kind: OutboxKind,
  recordId: string,
): OutboxRow[] {
  return SELECT_RECORD.all(db, { storeId, kind, recordId }).map(toRow);
}

/** Ids of one kind with pending rows in a store. */
export function pendingIds(db: Db, storeId: string, kind: OutboxKind): Set<string> {
  return new Set(
    outboxRows(db, storeId)
      .filter((row) => row.kind === kind)
      .map((row) => row.recordId),
  );
}

/** Each column is set only when its `set…` flag is 1: one statement for every patch. */
const UPDATE = write<{
  seqs: string;
  now: string;
  setState: number;
  state: OutboxState | null;
  setProblem: number;
  problem: string | null;
  setConflict: number;
  conflict: string | null;
  setNote: number;
  note: string | null;
  setAttemptedAt: number;
  attemptedAt: string | null;
  setForceSend: number;
  forceSend: number;
  setChanges: number;
  changes: string | null;
  setBase: number;
  base: string | null;
  setBaseUpdatedAt: number;
  baseUpdatedAt: string | null;
}>(`
  UPDATE user.outbox SET
    updated_at = @now,
    state = CASE WHEN @setState THEN @state ELSE state END,
    problem_json = CASE WHEN @setProblem THEN @problem ELSE problem_json END,
    conflict_json = CASE WHEN @setConflict THEN @conflict ELSE conflict_json END,
    note = CASE WHEN @setNote THEN @note ELSE note END,
    attempted_at = CASE WHEN @setAttemptedAt THEN @attemptedAt ELSE attempted_at END,
    force_send = CASE WHEN @setForceSend THEN @forceSend ELSE force_send END,
    changes_json = CASE WHEN @setChanges THEN @changes ELSE changes_json END,
    base_json = CASE WHEN @setBase THEN @base ELSE base_json END,
    base_updated_at = CASE WHEN @setBaseUpdatedAt THEN @baseUpdatedAt ELSE base_updated_at END
  WHERE seq IN (SELECT value FROM json_each(@seqs))`);

const flag = (value: unknown) => (value === undefined ? 0 : 1);
const json = (value: unknown) =>
  value === undefined || value === null ? null : JSON.stringify(value);

/** Changes the given columns of these rows; a key left out keeps its value. */
export function updateOutbox(
  db: Db,
  seqs: readonly number[],
  patch: RowPatch & { now: string },
): void {
  UPDATE.run(db, {
    seqs: JSON.stringify(seqs),
    now: patch.now,
    setState: flag(patch.state),
    state: patch.state ?? null,
    setProblem: flag(patch.problem),
    problem: json(patch.problem),
    setConflict: flag(patch.conflict),
    conflict: json(patch.conflict),
    setNote: flag(patch.note),
    note: patch.note ?? null,
    setAttemptedAt: flag(patch.attemptedAt),
    attemptedAt: patch.attemptedAt ?? null,
    setForceSend: flag(patch.forceSend),
    forceSend: patch.forceSend ? 1 : 0,
    setChanges: flag(patch.changes),
    changes: json(patch.changes),
    setBase: flag(patch.base),
    base: json(patch.base),
    setBaseUpdatedAt: flag(patch.baseUpdatedAt),
    baseUpdatedAt: patch.baseUpdatedAt ?? null,
  });
}

const DELETE_SEQS = write<{ seqs: string }>(
  `DELETE FROM user.outbox WHERE seq IN (SELECT value FROM json_each(@seqs))`,
);

export function deleteOutbox(db: Db, seqs: readonly number[]): void {
  DELETE_SEQS.run(db, { seqs: JSON.stringify(seqs) });
}

const COUNTS = read<{ pending: number; failed: number; conflicts: number }, { storeId: string }>(
  `SELECT count(DISTINCT kind || ':' || record_id) AS pending,
          count(DISTINCT CASE WHEN state = 'failed' THEN kind || ':' || record_id END) AS failed,
          count(DISTINCT CASE WHEN state = 'conflict' THEN kind || ':' || record_id END) AS conflicts
   FROM user.outbox WHERE store_id = @storeId`,
);

/** Pending counts of a store for its summary. */
export function outboxCounts(
  db: Db,
  storeId: string,
): { pending: number; failed: number; conflicts: number } {
  // A read-only data folder may leave the user's file unattached: then nothing waits to be sent.
  if (!hasUserData(db)) return { pending: 0, failed: 0, conflicts: 0 };
  return COUNTS.get(db, { storeId }) ?? { pending: 0, failed: 0, conflicts: 0 };
}

const DELETE_STORE_OUTBOX = write<{ storeId: string }>(
  `DELETE FROM user.outbox WHERE store_id = @storeId`,
);
const DELETE_STORE_COPIES = write<{ storeId: string }>(
  `DELETE FROM user.server_copies WHERE store_id = @storeId`,
);
const DELETE_STORE_KEYS = write<{ storeId: string }>(
  `DELETE FROM user.store_keys WHERE store_id = @storeId`,
);

export function deleteStoreOutbox(db: Db, storeId: string): void {
  DELETE_STORE_OUTBOX.run(db, { storeId });
  DELETE_STORE_COPIES.run(db, { storeId });
  DELETE_STORE_KEYS.run(db, { storeId });
  deleteSentEdits(db, storeId);
}

// ---------- the server's copy under pending edits ----------

export type CopyKind = 'test' | 'campaign';
type CopyKey = { storeId: string; kind: OutboxKind; recordId: string };

const SERVER_COPY = read<{ raw_json: string }, CopyKey>(
  `SELECT raw_json FROM user.server_copies WHERE store_id = @storeId AND kind = @kind AND record_id = @recordId`,
);
const SAVE_SERVER_COPY = write<CopyKey & { raw: string }>(
  `INSERT OR REPLACE INTO user.server_copies (store_id, kind, record_id, raw_json) VALUES (@storeId, @kind, @recordId, @raw)`,
);
const DELETE_SERVER_COPY = write<CopyKey>(
  `DELETE FROM user.server_copies WHERE store_id = @storeId AND kind = @kind AND record_id = @recordId`,
);
const ORPHAN_COPIES = read<{ storeId: string; kind: CopyKind; recordId: string }>(
  `SELECT c.store_id AS storeId, c.kind, c.record_id AS recordId FROM user.server_copies c
   WHERE NOT EXISTS (SELECT 1 FROM user.outbox o
                     WHERE o.store_id = c.store_id AND o.kind = c.kind AND o.record_id = c.record_id)`,
);

export function serverCopy(db: Db, storeId: string, kind: CopyKind, recordId: string): unknown {
  const row = SERVER_COPY.get(db, { storeId, kind, recordId });
  return row ? (JSON.parse(row.raw_json) as unknown) : undefined;
}

export function saveServerCopy(
  db: Db,
  storeId: string,
  kind: CopyKind,
  recordId: string,
  record: unknown,
): void {
  SAVE_SERVER_COPY.run(db, { storeId, kind, recordId, raw: JSON.stringify(record) });
}

/** Forgets a record's server copy (a create never has one: nothing to forget). */
export function deleteServerCopy(
  db: Db,
  storeId: string,
  kind: OutboxKind,
  recordId: string,
): void {
  DELETE_SERVER_COPY.run(db, { storeId, kind, recordId });
}

/** Records that have a server copy but no pending row any more (a crash between two writes). */
export function orphanServerCopies(
  db: Db,
): { storeId: string; kind: CopyKind; recordId: string }[] {
  return ORPHAN_COPIES.all(db);
}

// ---------- what the store taught about its key ----------

const MARK_READ_ONLY = write<{ storeId: string; reason: string; at: string }>(
  `INSERT OR REPLACE INTO user.store_keys (store_id, read_only_reason, read_only_at) VALUES (@storeId, @reason, @at)`,
);
const CLEAR_READ_ONLY = write<{ storeId: string }>(
  `DELETE FROM user.store_keys WHERE store_id = @storeId`,
);
const READ_ONLY_REASON = read<{ r: string | null }, { storeId: string }>(
  `SELECT read_only_reason AS r FROM user.store_keys WHERE store_id = @storeId`,
);

export function markReadOnly(db: Db, storeId: string, reason: string, at: string): void {
  MARK_READ_ONLY.run(db, { storeId, reason, at });
}

export function clearReadOnly(db: Db, storeId: string): void {
  CLEAR_READ_ONLY.run(db, { storeId });
}

export function readOnlyReason(db: Db, storeId: string): string | null {
  if (!hasUserData(db)) return null;
  return READ_ONLY_REASON.get(db, { storeId })?.r ?? null;
}

const EDITED_TESTS = read<{ recordId: string }, { storeId: string }>(
  `SELECT DISTINCT record_id AS recordId FROM user.outbox WHERE store_id = @storeId AND kind = 'test'`,
);
/** The tests of the store with an edit in the outbox (none when the user file is not attached). */
export function testsWithEdits(db: Db, storeId: string): string[] {
  if (!hasUserData(db)) return [];
  return EDITED_TESTS.all(db, { storeId }).map((row) => row.recordId);
}
