// Records a sync could not take (they failed validation or their request failed), kept with the reason.
import { read, write } from '../sql';
import type { Db, SetAsideKind, SetAsideResource } from '../types';
import { storableJson } from '../values';

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

type RecordKey = { storeId: string; resource: string; recordId: string };

const UPSERT_SET_ASIDE = write<
  RecordKey & {
    error: string;
    rawJson: string;
    seenAt: string;
    runId: string | null;
    kind: string;
    status: number | null;
  }
>(`
  INSERT INTO set_aside (store_id, resource, record_id, error, raw_json, seen_at, run_id, kind, status)
  VALUES (@storeId, @resource, @recordId, @error, @rawJson, @seenAt, @runId, @kind, @status)
  ON CONFLICT (store_id, resource, record_id) DO UPDATE SET
    error = excluded.error, raw_json = excluded.raw_json, seen_at = excluded.seen_at,
    run_id = excluded.run_id, kind = excluded.kind, status = excluded.status`);
const DELETE_SET_ASIDE = write<RecordKey>(
  `DELETE FROM set_aside WHERE store_id = @storeId AND resource = @resource AND record_id = @recordId`,
);

/** Keeps a record that could not be taken, with its error, so it can be reported. */
export function setAside(db: Db, record: SetAsideInput): void {
  UPSERT_SET_ASIDE.run(db, {
    storeId: record.storeId,
    resource: record.resource,
    recordId: record.recordId ?? '',
    error: record.error,
    // A record too deep to serialise is kept by its id and reason only.
    rawJson: storableJson(record.raw) ?? 'null',
    seenAt: record.seenAt,
    runId: record.runId ?? null,
    kind: record.kind ?? 'invalid',
    status: record.status ?? null,
  });
}

/** Forgets a set-aside record (it was taken after all). */
export function clearSetAside(
  db: Db,
  storeId: string,
  resource: SetAsideResource,
  recordId: string | null,
): void {
  DELETE_SET_ASIDE.run(db, { storeId, resource, recordId: recordId ?? '' });
}

/**
 * A listed test whose id could not be read (its answer was too large or broken before the id, or the
 * record has none) is kept under its place in the listing: "Test at listing position 12" in Sync issues.
 */
export function listingPositionId(position: number): string {
  return `${LISTING_POSITION} ${position}`;
}

const LISTING_POSITION = 'at listing position';
const COUNT_UNIDENTIFIED = read<{ n: number }, { storeId: string; runId: string }>(`
  SELECT count(*) AS n FROM set_aside
  WHERE store_id = @storeId AND resource = 'test' AND run_id = @runId AND record_id GLOB '${LISTING_POSITION} *'`);
const FORGET_UNIDENTIFIED = write<{ storeId: string; runId: string }>(`
  DELETE FROM set_aside
  WHERE store_id = @storeId AND resource = 'test' AND run_id IS NOT @runId AND record_id GLOB '${LISTING_POSITION} *'`);

/** Tests this run set aside by listing position: which cached tests they are cannot be told. */
export function countUnidentifiedTests(db: Db, storeId: string, runId: string): number {
  return COUNT_UNIDENTIFIED.get(db, { storeId, runId })?.n ?? 0;
}

/** After a walk to the end of the listing: positions set aside by earlier runs were all read again. */
export function forgetUnidentifiedTests(db: Db, storeId: string, runId: string): void {
  FORGET_UNIDENTIFIED.run(db, { storeId, runId });
}
