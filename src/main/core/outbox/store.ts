// The outbox's records over its rows: a record's rows merged into one (model.ts's collapse), rewritten as
// one, and a settled create's id remapped in the edits naming it. The SQL of the rows themselves, the
// server copies and the store keys is db/user/outbox.ts's: import those from there.
import type { Db } from '../db/types';
import {
  deleteOutbox,
  outboxRows,
  recordRows,
  updateOutbox,
  type OutboxKind,
  type RowPatch,
} from '../db/user/outbox';
import { collapse, groupRecords, isSendable, remapLocalId, type CreateKind } from './model';
import type { PendingRecord } from './model';

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
  return collapse(recordRows(db, storeId, kind, recordId));
}

/** Whether the store has a record the pusher would try (see isSendable). */
export function hasSendable(db: Db, storeId: string): boolean {
  return pendingRecords(db, storeId).some((record) => isSendable(record.state));
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
