// The rebase: the cache's copy of a record with unsent edits is always "server copy + pending edits",
// rebuilt at core start, after each pulled page and list, after every edit and once a create is settled.
// How a record of each kind is rebased is its kind's (kinds/); this walks the records and asks the registry.
import type { Campaign, Test } from '#shared/api/index';
import { getStoreRow } from '../db/cache/stores';
import type { Db } from '../db/types';
import { kindOf, type Confirmed } from './kinds/index';
import { rebaseTest } from './kinds/test';
import type { CreateKind, OutboxKind, PendingRecord } from './model';
import { deleteOutbox, orphanServerCopies, pendingIds, saveServerCopy } from '../db/user/outbox';
import { pendingRecord, pendingRecords, remapCreatedId } from './store';

export { localAudience } from './kinds/audience';

/**
 * Rewrites the cache's copy of one record as the server's copy plus its pending edits; with no edit
 * left, restores the server's copy and forgets it. Idempotent, so it may run as often as wanted.
 */
export function rebaseRecord(
  db: Db,
  storeId: string,
  kind: OutboxKind,
  recordId: string,
  now: string,
): void {
  kindOf(kind).rebase(db, storeId, recordId, pendingRecord(db, storeId, kind, recordId), now);
}

/**
 * Every record with pending edits (and every stale server copy) of a store, or of all stores. Records of a
 * store the cache does not list (an outbox row left by a store no longer there) have nowhere to be copied
 * to and are left as they are: the user's file never depends on a cache row existing.
 */
export function rebaseAll(db: Db, storeId: string | null, now: string): void {
  const listed = new Map<string, boolean>();
  const inCache = (id: string) => {
    let known = listed.get(id);
    if (known === undefined) listed.set(id, (known = getStoreRow(db, id) !== null));
    return known;
  };
  db.transaction(() => {
    for (const record of pendingRecords(db, storeId))
      if (inCache(record.storeId))
        rebaseRecord(db, record.storeId, record.kind, record.recordId, now);
    for (const orphan of orphanServerCopies(db)) {
      if (storeId !== null && orphan.storeId !== storeId) continue;
      if (inCache(orphan.storeId))
        rebaseRecord(db, orphan.storeId, orphan.kind, orphan.recordId, now);
    }
  }).immediate();
}

/**
 * After a pull wrote these server records: each one with pending edits becomes the server copy and
 * the edits are applied on top again, so a pull never overwrites what the user has not sent.
 */
export function rebasePulledTests(
  db: Db,
  storeId: string,
  tests: readonly Test[],
  now: string,
): void {
  const pending = pendingIds(db, storeId, 'test');
  if (pending.size === 0) return;
  for (const test of tests) {
    if (!pending.has(test.id)) continue;
    saveServerCopy(db, storeId, 'test', test.id, test);
    rebaseRecord(db, storeId, 'test', test.id, now);
  }
}

/** After the active campaigns and the audiences were replaced: pending edits and creates on top again. */
export function rebasePulledLists(
  db: Db,
  storeId: string,
  campaigns: readonly Campaign[] | null,
  now: string,
): void {
  for (const record of pendingRecords(db, storeId))
    kindOf(record.kind).rebasePulledLists(db, record, campaigns, now);
}

/**
 * A tag or audience create settled: confirmed by the store (`confirmed`, with the store's record when
 * it returned one) or dropped by the user (null). Its rows and local copy go; the store's copy takes
 * its place when confirmed; every edit naming the local id gets the store's id (or loses it), and the
 * tests they change are rebased. Nothing is ever sent with a made-up id.
 */
export function settleCreate(
  db: Db,
  record: PendingRecord,
  confirmed: Confirmed | null,
  now: string,
): void {
  const { storeId, recordId: localId, kind } = record;
  const create = kindOf(kind).create;
  if (create === null) throw new TypeError(`A ${kind} is not a create`);
  deleteOutbox(db, record.seqs);
  create.replaceLocal(db, record, confirmed, now);
  // The registry says this kind is a create: one of CreateKind's.
  const createKind = kind as CreateKind;
  const touched = remapCreatedId(db, storeId, createKind, localId, confirmed?.id ?? null, now);
  for (const testId of touched)
    rebaseTest(db, storeId, testId, pendingRecord(db, storeId, 'test', testId));
}
