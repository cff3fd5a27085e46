// The user's side of the outbox, each step one transaction that leaves the local copy rebased: an edit
// recorded with its base, a create recorded with its local id, and a record retried, discarded, undone
// or resolved. The checks a user must hear about (locked fields, duplicates, read-only keys) come first,
// in services/edits.ts.
import type { Db } from '../db/types';
import { isCreate, isUnsentCreate, kindOf } from './kinds/index';
import { saveTag } from '../db/cache/local-copies';
import {
  REQUEUED,
  resolvedConflict,
  type ConflictChoice,
  type OutboxRow,
  type PendingRecord,
} from './model';
import { rebaseRecord, settleCreate } from './rebase';
import { appendOutbox, deleteOutbox, saveServerCopy, updateOutbox } from '../db/user/outbox';
import { pendingRecord, pendingRecords, rewriteRecord } from './store';

export type NewEdit = {
  storeId: string;
  kind: 'test' | 'campaign';
  recordId: string;
  /** The server's record as last synced, kept under the edit. */
  server: unknown;
  changes: Record<string, unknown>;
  /** The server's values of the changed fields. */
  base: Record<string, unknown>;
  baseUpdatedAt: string | null;
};

/**
 * Appends an edit. The server's record is kept before the cache's copy turns into the local one; a
 * failed record goes back to the queue ("change it and retry"); one held as a conflict stays held.
 */
export function recordEdit(db: Db, edit: NewEdit, now: string): void {
  const { storeId, kind, recordId } = edit;
  db.transaction(() => {
    saveServerCopy(db, storeId, kind, recordId, edit.server);
    let held = pendingRecord(db, storeId, kind, recordId);
    if (held?.state === 'failed') {
      updateOutbox(db, held.seqs, { ...REQUEUED, now });
      held = null;
    }
    appendOutbox(db, {
      storeId,
      kind,
      recordId,
      changes: edit.changes,
      base: edit.base,
      baseUpdatedAt: edit.baseUpdatedAt,
      now,
      ...(held?.state === 'conflict' ? { state: 'conflict' as const } : {}),
    });
    rebaseRecord(db, storeId, kind, recordId, now);
  }).immediate();
}

/** Appends a create under its local id; its local copy (a tag, an audience) appears at once. */
export function recordCreate(
  db: Db,
  create: {
    storeId: string;
    kind: 'tag' | 'audience';
    localId: string;
    changes: Record<string, unknown>;
  },
  now: string,
): void {
  db.transaction(() => {
    appendOutbox(db, {
      storeId: create.storeId,
      kind: create.kind,
      recordId: create.localId,
      changes: create.changes,
      base: {},
      baseUpdatedAt: null,
      now,
    });
    rebaseRecord(db, create.storeId, create.kind, create.localId, now);
  }).immediate();
}

/**
 * A tag created here and not received by the store, renamed: its create and its local copy carry the
 * new name, and a refused one goes back to the queue. Read again inside the transaction, so a push
 * that started meanwhile wins: false then, and nothing changed.
 */
export function renameCreatedTag(
  db: Db,
  storeId: string,
  tagId: string,
  name: string,
  now: string,
): boolean {
  return db
    .transaction(() => {
      const record = pendingRecord(db, storeId, 'tag', tagId);
      if (record === null || !isUnsentCreate(record)) return false;
      rewriteRecord(
        db,
        record,
        { changes: { ...record.changes, name }, ...REQUEUED, attemptedAt: null },
        now,
      );
      saveTag(db, storeId, { id: tagId, name });
      // The edits that carry the tag (tests') show its new name.
      for (const edit of pendingRecords(db, storeId))
        if (kindOf(edit.kind).localIdsNamed(edit.changes, new Set([tagId])).length > 0)
          rebaseRecord(db, storeId, edit.kind, edit.recordId, now);
      return true;
    })
    .immediate();
}

/** A failed record sent again as it is. */
export function retryRecord(db: Db, record: PendingRecord, now: string): void {
  updateOutbox(db, record.seqs, { ...REQUEUED, now });
}

/** Drops a record; a dropped create takes its local id out of the edits that used it. */
export function discardRecord(db: Db, record: PendingRecord, now: string): void {
  db.transaction(() => {
    if (isCreate(record.kind)) settleCreate(db, record, null, now);
    else {
      deleteOutbox(db, record.seqs);
      rebaseRecord(db, record.storeId, record.kind, record.recordId, now);
    }
  }).immediate();
}

/** Drops one edit of a record (a create's row is the create: the whole record goes). */
export function undoRow(db: Db, row: OutboxRow, now: string): void {
  db.transaction(() => {
    const record = pendingRecord(db, row.storeId, row.kind, row.recordId);
    if (isCreate(row.kind) && record) settleCreate(db, record, null, now);
    else {
      deleteOutbox(db, [row.seq]);
      rebaseRecord(db, row.storeId, row.kind, row.recordId, now);
    }
  }).immediate();
}

/** The user's pick for one field of a record held as a conflict (see resolvedConflict). */
export function resolveRecord(
  db: Db,
  record: PendingRecord,
  pick: { field: string; choice: ConflictChoice; value: unknown },
  now: string,
): void {
  const conflict = record.conflict;
  if (conflict === null) return;
  db.transaction(() => {
    rewriteRecord(
      db,
      record,
      resolvedConflict(record, conflict, pick.field, pick.choice, pick.value),
      now,
    );
    rebaseRecord(db, record.storeId, record.kind, record.recordId, now);
  }).immediate();
}
