// Background syncs in the user's file: each store's own schedule, back-off and refused key
// (user.background_sync), and the calls syncs changed that the user has not looked at (user.decision_news).
import { BackgroundSync } from '#shared/contract/settings';
import type { DecisionNews } from '#shared/contract/decisions';
import type { DecisionCall } from '#shared/contract/decisions';
import { schemaVersion } from '../cache/migrations';
import { read, write } from '../sql';
import type { Db } from '../types';
import { hasUserData } from './attached';

/** A store's background state as kept; a store without a row has the defaults (BACKGROUND_IDLE). */
export type BackgroundRow = {
  /** The store's own schedule; null: the global setting. */
  schedule: BackgroundSync | null;
  failures: number;
  retryAt: string | null;
  refusedAt: string | null;
  refusedReason: string | null;
};

export const BACKGROUND_IDLE: BackgroundRow = {
  schedule: null,
  failures: 0,
  retryAt: null,
  refusedAt: null,
  refusedReason: null,
};

/** Whether the user's file has the tables (user-data migration 5): bare caches and old read-only files do not. */
export function hasBackgroundData(db: Db): boolean {
  return hasUserData(db) && schemaVersion(db, 'user') >= 5;
}

/** Whether background state can be written here (a read-only data folder keeps it in memory instead). */
export function canWriteBackground(db: Db): boolean {
  return !db.readonly && hasBackgroundData(db);
}

type Stored = {
  storeId: string;
  schedule: string | null;
  failures: number;
  retryAt: string | null;
  refusedAt: string | null;
  refusedReason: string | null;
};

const SELECT = `SELECT store_id AS storeId, schedule, failures, retry_at AS retryAt,
  refused_at AS refusedAt, refused_reason AS refusedReason FROM user.background_sync`;
const BACKGROUND_ROWS = read<Stored>(SELECT);
const BACKGROUND_ROW = read<Stored, { storeId: string }>(`${SELECT} WHERE store_id = @storeId`);
const SAVE_BACKGROUND_ROW = write<{
  storeId: string;
  schedule: string | null;
  failures: number;
  retryAt: string | null;
  refusedAt: string | null;
  refusedReason: string | null;
  at: string;
}>(
  `INSERT INTO user.background_sync
     (store_id, schedule, failures, retry_at, refused_at, refused_reason, updated_at)
   VALUES (@storeId, @schedule, @failures, @retryAt, @refusedAt, @refusedReason, @at)
   ON CONFLICT (store_id) DO UPDATE SET schedule = excluded.schedule, failures = excluded.failures,
     retry_at = excluded.retry_at, refused_at = excluded.refused_at,
     refused_reason = excluded.refused_reason, updated_at = excluded.updated_at`,
);
const DELETE_BACKGROUND = [
  write<{ storeId: string }>(`DELETE FROM user.background_sync WHERE store_id = @storeId`),
  write<{ storeId: string }>(`DELETE FROM user.decision_news WHERE store_id = @storeId`),
];

function toRow(stored: Stored): BackgroundRow {
  return {
    // A schedule this version does not know (a newer one's) reads as none: the global setting applies.
    schedule: BackgroundSync.safeParse(stored.schedule).data ?? null,
    failures: stored.failures,
    retryAt: stored.retryAt,
    refusedAt: stored.refusedAt,
    refusedReason: stored.refusedReason,
  };
}

export function readBackgroundRows(db: Db): Map<string, BackgroundRow> {
  if (!hasBackgroundData(db)) return new Map();
  return new Map(BACKGROUND_ROWS.all(db).map((row) => [row.storeId, toRow(row)]));
}

export function readBackgroundRow(db: Db, storeId: string): BackgroundRow {
  if (!hasBackgroundData(db)) return { ...BACKGROUND_IDLE };
  const row = BACKGROUND_ROW.get(db, { storeId });
  return row ? toRow(row) : { ...BACKGROUND_IDLE };
}

/** Saves a store's whole state. */
export function writeBackgroundRow(db: Db, storeId: string, row: BackgroundRow, at: string): void {
  SAVE_BACKGROUND_ROW.run(db, {
    storeId,
    schedule: row.schedule,
    failures: row.failures,
    retryAt: row.retryAt,
    refusedAt: row.refusedAt,
    refusedReason: row.refusedReason,
    at,
  });
}

/** A store removed: its background state and its news go with it. */
export function deleteBackgroundState(db: Db, storeId: string): void {
  if (!canWriteBackground(db)) return;
  for (const remove of DELETE_BACKGROUND) remove.run(db, { storeId });
}

// ---------- calls changed since the user last looked ----------

export type DecisionChange = {
  testId: string;
  title: string;
  /** The call before the sync; null when the test had none (no results yet). */
  previous: string | null;
  call: DecisionCall;
  words: string;
};

const SAVE_NEWS = write<{
  storeId: string;
  testId: string;
  call: string;
  previous: string | null;
  at: string;
}>(
  `INSERT INTO user.decision_news (store_id, test_id, call, previous, at)
   VALUES (@storeId, @testId, @call, @previous, @at)
   ON CONFLICT (store_id, test_id) DO UPDATE SET call = excluded.call, at = excluded.at`,
);
const DROP_NEWS = write<{ storeId: string; testId: string }>(
  `DELETE FROM user.decision_news WHERE store_id = @storeId AND test_id = @testId`,
);
const NEWS_COUNTS = read<{ storeId: string; count: number }, { storeId: string | null }>(
  `SELECT n.store_id AS storeId, count(*) AS count FROM user.decision_news n
   JOIN tests t ON t.store_id = n.store_id AND t.id = n.test_id AND t.removed = 0
   WHERE (@storeId IS NULL OR n.store_id = @storeId) GROUP BY n.store_id ORDER BY n.store_id`,
);
const CLEAR_NEWS = write<{ storeId: string | null }>(
  `DELETE FROM user.decision_news WHERE (@storeId IS NULL OR store_id = @storeId)`,
);

/**
 * Records the calls a sync changed: a change to a call that needs the consultant is news (replacing an
 * older one of the test); a change back to one that needs nobody (keep running) is no longer news.
 */
export function recordDecisionNews(
  db: Db,
  storeId: string,
  changes: { news: readonly DecisionChange[]; settled: readonly string[] },
  at: string,
): void {
  if (!canWriteBackground(db)) return;
  db.transaction(() => {
    for (const { testId, call, previous } of changes.news)
      SAVE_NEWS.run(db, { storeId, testId, call, previous, at });
    for (const testId of changes.settled) DROP_NEWS.run(db, { storeId, testId });
  }).immediate();
}

/** The news of every store (storeId null) or one; tests no longer cached or removed are not counted. */
export function decisionNews(db: Db, storeId: string | null): DecisionNews {
  if (!hasBackgroundData(db)) return { count: 0, byStore: {} };
  const rows = NEWS_COUNTS.all(db, { storeId });
  const byStore = Object.fromEntries(rows.map((row) => [row.storeId, row.count]));
  return { count: rows.reduce((sum, row) => sum + row.count, 0), byStore };
}

/** The user looked at the Decisions view of all stores (null) or one. */
export function clearDecisionNews(db: Db, storeId: string | null): void {
  if (!canWriteBackground(db)) return;
  CLEAR_NEWS.run(db, { storeId });
}
