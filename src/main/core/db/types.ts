// Types of the cache's own records (stores, sync state, set-aside keys); API and bridge shapes come from src/shared.
import type Database from 'better-sqlite3';
import type { Problem } from '#shared/problem';
import type { StoreSummary, SyncOutcome, SyncPhase } from '#shared/contract/index';

/** One open cache: a better-sqlite3 connection with the schema migrated. */
export type Db = Database.Database;

export type StoreKind = StoreSummary['kind'];
export type KeyStorage = StoreSummary['keyStorage'];

/** A store as the cache keeps it. There is deliberately no key here: keys never enter SQLite. */
export type StoreRow = {
  id: string;
  name: string;
  baseUrl: string;
  kind: StoreKind;
  keyStorage: KeyStorage;
  createdAt: string;
  /** When a sync last finished with data written (outcome ok or partial). */
  lastSyncedAt: string | null;
  /** When a sync last finished, whatever its outcome. */
  lastFinishedAt: string | null;
  lastOutcome: SyncOutcome | null;
  lastProblem: Problem | null;
  /** Order in the store list; new stores go last. */
  position: number;
  /** Requests per second the store's API was last measured to allow (from its 429s), or null. */
  learnedRate: number | null;
};

export type NewStore = Pick<
  StoreRow,
  'id' | 'name' | 'baseUrl' | 'kind' | 'keyStorage' | 'createdAt'
> & {
  position?: number;
};

export type StorePatch = Partial<Pick<StoreRow, 'name' | 'baseUrl' | 'keyStorage' | 'position'>>;

export type SyncOutcomeRecord = {
  outcome: SyncOutcome;
  problem: Problem | null;
  finishedAt: string;
  /** Null keeps the previous value: a failed sync does not forget when the store was last synced. */
  lastSyncedAt: string | null;
};

export type StoreCounts = { tests: number; removed: number; setAside: number };

/** An interrupted run's place, so the next run can resume instead of starting over. */
export type SyncStateRow = {
  runId: string;
  phase: SyncPhase;
  /** The next page of the test listing to fetch; null outside the tests phase. */
  nextPage: number | null;
  startedAt: string;
  updatedAt: string;
};

export type SyncStateInput = Omit<SyncStateRow, 'updatedAt'> & { updatedAt?: string };

export type ResourceSyncRow = { resource: string; syncedAt: string };

export const SET_ASIDE_RESOURCES = ['test', 'results', 'campaign', 'audience'] as const;
export type SetAsideResource = (typeof SET_ASIDE_RESOURCES)[number];
export type { SetAsideKind } from '#shared/contract/index';

/** A tag as collected from the tests of a store. */
export type TagRecord = { storeId: string; id: string; name: string; testCount: number };
