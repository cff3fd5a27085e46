// `sync.*`: starting and cancelling syncs, their progress and reports, and the records a sync set aside.
import { z } from 'zod';
import { Problem } from '../problem';
import { Empty, method, ScopeInput, StoreId, StoreInput } from './common';

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
  problem: Problem.nullable(),
  /** What the push that opens the run did with the outbox; absent when nothing was pending. */
  edits: z
    .object({ sent: z.int(), failed: z.int(), conflicts: z.int(), waiting: z.int() })
    .optional(),
});
export type SyncReport = z.infer<typeof SyncReport>;

export const SetAsideRecord = z.object({
  storeId: StoreId,
  resource: z.string(),
  recordId: z.string().nullable(),
  error: z.string(),
  seenAt: z.string(),
});
export type SetAsideRecord = z.infer<typeof SetAsideRecord>;

export const sync = {
  start: method(StoreInput, z.object({ started: z.boolean() })),
  startAll: method(Empty, z.object({ started: z.array(StoreId) })),
  cancel: method(StoreInput, z.object({ cancelled: z.boolean() })),
  issues: method(ScopeInput, z.array(SetAsideRecord)),
};
