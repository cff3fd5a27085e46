// Records a sync could not take (they failed validation or their request failed), kept with the reason.
import { statement } from './statements';
import type { Db, SetAsideKind, SetAsideResource } from './types';
import { storableJson } from './values';

export interface SetAsideInput {
  storeId: string;
  resource: SetAsideResource;
  /** The record's id; null for one without a usable id (kept as '', one per resource). */
  recordId: string | null;
  error: string;
  /** The record as the server sent it, or null when there was no record (a failed request). */
  raw: unknown;
  seenAt: string;
  /** For a test set aside during a listing: the run that saw it, so it is not marked removed. */
  runId?: string | null;
  /** What happens next: invalid (default) waits for a valid record, transient is retried next sync. */
  kind?: SetAsideKind;
  /** The HTTP status of a failed request, when there was one. */
  status?: number | null;
}

const UPSERT_SET_ASIDE = `
  INSERT INTO set_aside (store_id, resource, record_id, error, raw_json, seen_at, run_id, kind, status)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (store_id, resource, record_id) DO UPDATE SET
    error = excluded.error, raw_json = excluded.raw_json, seen_at = excluded.seen_at,
    run_id = excluded.run_id, kind = excluded.kind, status = excluded.status`;
const DELETE_SET_ASIDE = `DELETE FROM set_aside WHERE store_id = ? AND resource = ? AND record_id = ?`;

/** Keeps a record that could not be taken, with its error, so it can be reported. */
export function setAside(db: Db, record: SetAsideInput): void {
  statement(db, UPSERT_SET_ASIDE).run(
    record.storeId,
    record.resource,
    record.recordId ?? '',
    record.error,
    // A record too deep to serialise is kept by its id and reason only.
    storableJson(record.raw) ?? 'null',
    record.seenAt,
    record.runId ?? null,
    record.kind ?? 'invalid',
    record.status ?? null,
  );
}

/** Forgets a set-aside record (it was taken after all). */
export function clearSetAside(
  db: Db,
  storeId: string,
  resource: SetAsideResource,
  recordId: string | null,
): void {
  statement(db, DELETE_SET_ASIDE).run(storeId, resource, recordId ?? '');
}
