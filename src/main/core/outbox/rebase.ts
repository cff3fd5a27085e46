// The rebase: the cache's copy of a record with unsent edits is always "server copy + pending edits",
// rebuilt at core start, after each pulled page and list, after every edit and once a create is settled.
import { Campaign, Test, type CustomAudience } from '#shared/api/index';
import { getStoreRow } from '../db/cache/stores';
import type { Db } from '../db/types';
import {
  applyCampaignChanges,
  applyTestChanges,
  audienceById,
  cachedCampaign,
  cachedTest,
  deleteAudience,
  deleteTag,
  saveAudience,
  saveTag,
  tagById,
  writeLocalCampaign,
  writeLocalTest,
} from './local-copies';
import { isCreate, type OutboxKind, type PendingRecord } from './model';
import {
  deleteOutbox,
  deleteServerCopy,
  orphanServerCopies,
  pendingIds,
  pendingRecord,
  pendingRecords,
  remapCreatedId,
  saveServerCopy,
  serverCopy,
} from './store';

/** The server's record under the pending edits: the saved copy, else the cache (no edit has touched it yet). */
export function serverTest(db: Db, storeId: string, testId: string): Test | null {
  const saved = Test.safeParse(serverCopy(db, storeId, 'test', testId));
  return saved.success ? saved.data : cachedTest(db, storeId, testId);
}

export function serverCampaign(db: Db, storeId: string, campaignId: string): Campaign | null {
  const saved = Campaign.safeParse(serverCopy(db, storeId, 'campaign', campaignId));
  return saved.success ? saved.data : cachedCampaign(db, storeId, campaignId);
}

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
  const record = pendingRecord(db, storeId, kind, recordId);
  if (kind === 'test') {
    const server = serverTest(db, storeId, recordId);
    if (server === null) return;
    if (record === null) {
      writeLocalTest(db, storeId, server);
      deleteServerCopy(db, storeId, 'test', recordId);
      return;
    }
    saveServerCopy(db, storeId, 'test', recordId, server);
    writeLocalTest(db, storeId, applyTestChanges(db, storeId, server, record.changes));
  } else if (kind === 'campaign') {
    const server = serverCampaign(db, storeId, recordId);
    if (server === null) return;
    if (record === null) {
      writeLocalCampaign(db, storeId, server);
      deleteServerCopy(db, storeId, 'campaign', recordId);
      return;
    }
    saveServerCopy(db, storeId, 'campaign', recordId, server);
    writeLocalCampaign(db, storeId, applyCampaignChanges(server, record.changes));
  } else if (kind === 'tag' && record !== null) {
    const name = String(record.changes.name ?? '');
    if (tagById(db, storeId, recordId) === null) saveTag(db, storeId, { id: recordId, name });
  } else if (kind === 'audience' && record !== null) {
    if (audienceById(db, storeId, recordId) === null)
      saveAudience(db, storeId, localAudience(record), now);
  }
}

/** The local copy of an audience created here and not confirmed yet. */
export function localAudience(record: PendingRecord): CustomAudience {
  const rules = Array.isArray(record.changes.rules)
    ? (record.changes.rules as CustomAudience['rules'])
    : [];
  return { id: record.recordId, name: String(record.changes.name ?? ''), rules };
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
  for (const record of pendingRecords(db, storeId)) {
    if (record.kind === 'campaign' && campaigns !== null) {
      const server = campaigns.find((c) => c.id === record.recordId);
      if (server) saveServerCopy(db, storeId, 'campaign', record.recordId, server);
      rebaseRecord(db, storeId, 'campaign', record.recordId, now);
    }
    if (record.kind === 'audience') rebaseRecord(db, storeId, 'audience', record.recordId, now);
  }
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
  confirmed: { id: string; audience?: CustomAudience } | null,
  now: string,
): void {
  const { storeId, recordId: localId, kind } = record;
  if (!isCreate(kind)) throw new TypeError(`A ${kind} is not a create`);
  const name = String(record.changes.name ?? '');
  deleteOutbox(db, record.seqs);
  if (kind === 'tag') {
    deleteTag(db, storeId, localId);
    if (confirmed) saveTag(db, storeId, { id: confirmed.id, name });
  } else {
    deleteAudience(db, storeId, localId);
    if (confirmed)
      saveAudience(db, storeId, confirmed.audience ?? { id: confirmed.id, name, rules: [] }, now);
  }
  const touched = remapCreatedId(db, storeId, kind, localId, confirmed?.id ?? null, now);
  for (const testId of touched) rebaseRecord(db, storeId, 'test', testId, now);
}
