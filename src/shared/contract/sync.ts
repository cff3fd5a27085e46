// `sync.*`: starting and cancelling syncs, their progress and reports, and the records a sync set aside.
import { z } from 'zod';
import { Problem } from '../problem';
import { Empty, method, ScopeInput, StoreId, StoreInput } from './common';
import { BackgroundSync } from './settings';

export const SYNC_PHASES = ['tests', 'results', 'campaigns', 'audiences'] as const;
export const SyncPhase = z.enum(SYNC_PHASES);
export type SyncPhase = z.infer<typeof SyncPhase>;

export const SYNC_STATES = ['never', 'idle', 'syncing', 'error', 'offline'] as const;
export const SyncState = z.enum(SYNC_STATES);

export const SyncProgress = z.object({
  storeId: StoreId,
  phase: SyncPhase,
  done: z.int().nonnegative(),
  total: z.int().nonnegative().nullable(),
});
export type SyncProgress = z.infer<typeof SyncProgress>;

export const SYNC_OUTCOMES = ['ok', 'partial', 'offline', 'error', 'cancelled'] as const;
export const SyncOutcome = z.enum(SYNC_OUTCOMES);
export type SyncOutcome = z.infer<typeof SyncOutcome>;

export const SyncReport = z.object({
  storeId: StoreId,
  outcome: SyncOutcome,
  startedAt: z.string(),
  finishedAt: z.string(),
  requests: z.int().nonnegative(),
  testsSeen: z.int().nonnegative(),
  testsRemoved: z.int().nonnegative(),
  resultsFetched: z.int().nonnegative(),
  setAside: z.int().nonnegative(),
  /** Set aside past the per-run cap: counted (and summarised in the problem), not listed. */
  setAsideNotListed: z.int().nonnegative(),
  problem: Problem.nullable(),
  /** What the push that opens the run did with the outbox; absent when nothing was pending. */
  edits: z
    .object({ sent: z.int(), failed: z.int(), conflicts: z.int(), waiting: z.int() })
    .optional(),
});
export type SyncReport = z.infer<typeof SyncReport>;

/**
 * What Splitbook does next with a record it set aside: `invalid` (it failed validation or could not be
 * stored) and `refused` (the server refused the request) wait for a fix on the server; `transient`
 * (a server error) is retried at the next sync.
 */
export const SET_ASIDE_KINDS = ['transient', 'invalid', 'refused'] as const;
export const SetAsideKind = z.enum(SET_ASIDE_KINDS);
export type SetAsideKind = z.infer<typeof SetAsideKind>;

export const SetAsideRecord = z.object({
  storeId: StoreId,
  resource: z.string(),
  recordId: z.string().nullable(),
  /** The record's title: the cached test's for results, the record's own when it has one. */
  title: z.string().nullable(),
  kind: SetAsideKind,
  /** The HTTP status of a failed request. */
  status: z.int().nullable(),
  error: z.string(),
  seenAt: z.string(),
});
export type SetAsideRecord = z.infer<typeof SetAsideRecord>;

/** The most one `sync.issues` call returns; more pages follow with `cursor`. */
export const MAX_ISSUES_PAGE = 500;

export const SyncIssuesInput = ScopeInput.extend({
  kind: SetAsideKind.nullable().default(null),
  /** Opaque cursor from the previous page's `nextCursor`. */
  cursor: z.string().max(2000).nullable().default(null),
  limit: z.int().min(1).max(MAX_ISSUES_PAGE).default(200),
});

export const SyncIssuesPage = z.object({
  rows: z.array(SetAsideRecord),
  nextCursor: z.string().nullable(),
  /** Rows of the scope (all kinds), and per kind. */
  total: z.int().nonnegative(),
  byKind: z.object({ transient: z.int(), invalid: z.int(), refused: z.int() }),
});
export type SyncIssuesPage = z.infer<typeof SyncIssuesPage>;

/** Where a store's background syncs stand (in each StoreSummary; the CLI's `stores`). */
export const BackgroundStatus = z.object({
  /** The schedule in effect: the store's own, else the global setting. */
  schedule: BackgroundSync,
  /** The store's own schedule; null: the global setting applies. */
  own: BackgroundSync.nullable(),
  /** When the app next syncs the store by itself (while it runs and is online); null: never on its own. */
  nextAt: z.string().nullable(),
  /** Syncs that failed in a row: each doubles the wait before the next try, up to the schedule's interval. */
  failures: z.int().nonnegative(),
  /** While the store backs off after failures: no background sync before this. */
  backoffUntil: z.string().nullable(),
  /** The store refused its key: background syncs wait until the key is changed. */
  stopped: z.object({ reason: z.string(), at: z.string() }).nullable(),
});
export type BackgroundStatus = z.infer<typeof BackgroundStatus>;

export const sync = {
  start: method(StoreInput, z.object({ started: z.boolean() })),
  startAll: method(Empty, z.object({ started: z.array(StoreId) })),
  cancel: method(StoreInput, z.object({ cancelled: z.boolean() })),
  issues: method(SyncIssuesInput, SyncIssuesPage),
  /**
   * The window's view of the network (the page's online and offline events): offline, no background
   * sync is tried; back online, every store syncs (its waiting edits first).
   */
  connectivity: method(z.object({ online: z.boolean() }), z.null()),
};
