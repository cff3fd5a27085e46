// Outbox rows grouped into records (one test, campaign, tag or audience), and the rebase: the local copy
// in the cache is rebuilt as "server copy + pending edits", at core start, after each pull and edit.
import { Campaign, Test, type CustomAudience } from '../../../../shared/api';
import {
  applyCampaignChanges,
  applyTestChanges,
  audienceById,
  cachedCampaign,
  cachedTest,
  deleteServerCopy,
  orphanServerCopies,
  outboxRows,
  recordRows,
  saveAudience,
  saveServerCopy,
  saveTag,
  serverCopy,
  tagById,
  writeLocalCampaign,
  writeLocalTest,
  type ConflictRecord,
  type Db,
  type OutboxKind,
  type OutboxRow,
  type OutboxState,
} from '../../db';
import type { Problem } from '../../../../shared/problem';

/** All pending rows of one record, collapsed: what one request would carry. */
export type PendingRecord = {
  storeId: string;
  kind: OutboxKind;
  recordId: string;
  rows: OutboxRow[];
  seqs: number[];
  /** Later edits win, field by field. */
  changes: Record<string, unknown>;
  /** Per field, the base of the first edit that changed it: the server's value before the user's changes. */
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

const STATE_WEIGHT: Record<OutboxState, number> = {
  queued: 0,
  sending: 1,
  waiting: 2,
  failed: 3,
  conflict: 4,
};

export function groupRecords(rows: readonly OutboxRow[]): PendingRecord[] {
  const byKey = new Map<string, OutboxRow[]>();
  for (const row of rows) {
    const key = `${row.storeId}\u0000${row.kind}\u0000${row.recordId}`;
    const list = byKey.get(key);
    if (list) list.push(row);
    else byKey.set(key, [row]);
  }
  return [...byKey.values()].flatMap((list) => {
    const record = collapse(list);
    return record ? [record] : [];
  });
}

export function collapse(rows: readonly OutboxRow[]): PendingRecord | null {
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last) return null;
  const changes: Record<string, unknown> = {};
  const base: Record<string, unknown> = {};
  let worst: OutboxRow = first;
  for (const row of rows) {
    Object.assign(changes, row.changes);
    for (const [field, value] of Object.entries(row.base))
      if (!(field in base)) base[field] = value;
    if (STATE_WEIGHT[row.state] > STATE_WEIGHT[worst.state]) worst = row;
  }
  return {
    storeId: first.storeId,
    kind: first.kind,
    recordId: first.recordId,
    rows: [...rows],
    seqs: rows.map((r) => r.seq),
    changes,
    base,
    baseUpdatedAt: first.baseUpdatedAt,
    state: worst.state,
    attemptedAt: rows.find((r) => r.attemptedAt !== null)?.attemptedAt ?? null,
    forceSend: rows.some((r) => r.forceSend),
    note: worst.note ?? last.note,
    problem: worst.problem ?? last.problem,
    conflict: worst.conflict,
    createdAt: first.createdAt,
    updatedAt: last.updatedAt,
  };
}

export function pendingRecord(
  db: Db,
  storeId: string,
  kind: OutboxKind,
  recordId: string,
): PendingRecord | null {
  return collapse(recordRows(db, storeId, kind, recordId));
}

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

export function localAudience(record: PendingRecord): CustomAudience {
  const rules = Array.isArray(record.changes.rules)
    ? (record.changes.rules as CustomAudience['rules'])
    : [];
  return { id: record.recordId, name: String(record.changes.name ?? ''), rules };
}

/** Every record with pending edits (and every stale server copy) of a store, or of all stores. */
export function rebaseAll(db: Db, storeId: string | null, now: string): void {
  db.transaction(() => {
    for (const record of groupRecords(outboxRows(db, storeId)))
      rebaseRecord(db, record.storeId, record.kind, record.recordId, now);
    for (const orphan of orphanServerCopies(db)) {
      if (storeId !== null && orphan.storeId !== storeId) continue;
      rebaseRecord(db, orphan.storeId, orphan.kind, orphan.recordId, now);
    }
  })();
}

/** Ids of one kind with pending rows in a store. */
export function pendingIds(db: Db, storeId: string, kind: OutboxKind): Set<string> {
  return new Set(
    outboxRows(db, storeId)
      .filter((row) => row.kind === kind)
      .map((row) => row.recordId),
  );
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
  const records = groupRecords(outboxRows(db, storeId));
  for (const record of records) {
    if (record.kind === 'campaign' && campaigns !== null) {
      const server = campaigns.find((c) => c.id === record.recordId);
      if (server) saveServerCopy(db, storeId, 'campaign', record.recordId, server);
      rebaseRecord(db, storeId, 'campaign', record.recordId, now);
    }
    if (record.kind === 'audience') rebaseRecord(db, storeId, 'audience', record.recordId, now);
  }
}
