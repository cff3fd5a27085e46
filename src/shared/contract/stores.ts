// `stores.*`: the stores Splitbook syncs, their keys and their sync state.
import { z } from 'zod';
import { Problem } from '../problem';
import { Empty, method, StoreId, StoreInput } from './common';
import { BackgroundStatus, SyncOutcome, SyncProgress, SyncState } from './sync';
import { BackgroundSync } from './settings';
import { insecureAddressProblem, PLAIN_HTTP_REFUSED } from '../domain/base-url';

export const KEY_STORAGES = ['keychain', 'session', 'none'] as const;

export const StoreSummary = z.object({
  id: StoreId,
  name: z.string(),
  baseUrl: z.string(),
  /** 'demo' stores run the simulator in-process and need no key. */
  kind: z.enum(['api', 'demo']),
  /** Where the key lives: the OS keychain, this session's memory only, or nowhere (demo, or lost). */
  keyStorage: z.enum(KEY_STORAGES),
  sync: z.object({
    state: SyncState,
    lastSyncedAt: z.string().nullable(),
    /** When the last sync ended, whatever its outcome (an offline attempt included). */
    lastAttemptAt: z.string().nullable(),
    lastOutcome: SyncOutcome.nullable(),
    lastProblem: Problem.nullable(),
    progress: SyncProgress.nullable(),
    /** When each resource was last synced in full, or null when it never was. */
    resources: z.object({
      tests: z.string().nullable(),
      results: z.string().nullable(),
      campaigns: z.string().nullable(),
      audiences: z.string().nullable(),
    }),
  }),
  counts: z.object({ tests: z.int(), removed: z.int(), setAside: z.int() }),
  /** Unsent edits, and whether the store refused a write with 403 (its key is read-only). */
  edits: z
    .object({
      pending: z.int(),
      failed: z.int(),
      conflicts: z.int(),
      readOnly: z.string().nullable(),
    })
    .optional(),
  /** Its background syncs: schedule, next one, back-off, or stopped by a refused key. */
  background: BackgroundStatus.optional(),
});
export type StoreSummary = z.infer<typeof StoreSummary>;

/** What a store's name and address may be, as typed. */
export const MAX_STORE_NAME_LENGTH = 100;
export const MAX_BASE_URL_LENGTH = 500;

export const AddStoreInput = z.object({
  name: z.string().trim().min(1, 'Name is required').max(MAX_STORE_NAME_LENGTH),
  baseUrl: z
    .string()
    .trim()
    .min(1, 'API base URL is required')
    .max(MAX_BASE_URL_LENGTH)
    .pipe(
      z.url({
        protocol: /^https?$/,
        error: 'API base URL must start with https:// (or http://), e.g. https://acme.example.com',
      }),
    )
    .refine((url) => insecureAddressProblem(url) === null, { error: PLAIN_HTTP_REFUSED }),
  apiKey: z.string().trim().min(1, 'API key is required').max(4096),
  /** Keep the key in memory for this session only (when no keychain is usable). */
  sessionOnly: z.boolean().default(false),
});
export type AddStoreInput = z.input<typeof AddStoreInput>;

export const stores = {
  list: method(Empty, z.array(StoreSummary)),
  add: method(AddStoreInput, StoreSummary),
  openDemo: method(Empty, StoreSummary),
  rename: method(
    StoreInput.extend({ name: z.string().trim().min(1).max(MAX_STORE_NAME_LENGTH) }),
    StoreSummary,
  ),
  /**
   * Replaces a store's key and syncs with it. A key whose listing shares no test with the store's
   * cache reads another store: refused with a 'different-store' problem unless `onDifferentStore` is
   * 'replace' (the store's cache, unsent edits and review memory go; its name and settings stay).
   * When those tests are cached for another store already in Splitbook, the problem is 'known-store'
   * and names it (asked again, 'replace' still replaces).
   */
  setKey: method(
    StoreInput.extend({
      apiKey: z.string().trim().min(1).max(4096),
      sessionOnly: z.boolean().default(false),
      onDifferentStore: z.enum(['ask', 'replace']).optional(),
    }),
    StoreSummary,
  ),
  remove: method(StoreInput, z.null()),
  /** The store's own background sync schedule; null: the global setting applies again. */
  setBackgroundSync: method(
    StoreInput.extend({ schedule: BackgroundSync.nullable() }),
    StoreSummary,
  ),
};
