// Store services: add, rename, re-key and remove stores, and list them with their sync state.
import { randomUUID } from 'node:crypto';
import type { Services, StoreSummary, SyncPhase } from '#shared/contract/index';
import { appProblem, problem, PROBLEM_TYPES, ProblemError, type Problem } from '#shared/problem';
import { createApiClient, normaliseBaseUrl, type WalkedPage } from '../api';
import { ApiError } from '../api/errors';
import { canWriteBackground } from '../db/user/background';
import { clearKeyJournal, journalKey } from '../db/cache/key-journal';
import {
  deleteStore,
  getStoreRow,
  insertStore,
  storeCounts,
  updateStore,
} from '../db/cache/stores';
import { getResourceSyncs } from '../db/cache/sync-state';
import type { Db, StoreRow } from '../db/types';
import { forgetStoreReview } from '../db/history/review';
import { cachedTestIds, resetStoreCache, storeHoldingAny } from '../db/cache/stores';
import { hasUserData } from '../db/user/attached';
import { clearReadOnly, deleteStoreOutbox, outboxCounts, readOnlyReason } from '../db/user/outbox';
import { compareListing } from '../stores/identity';
import type { SyncEngine } from '../sync/run';
import type { BackgroundSyncer } from '../sync/background';
import type { KeyRing } from '../stores/keys';
import { DEMO_STORE_ID, type StoreRegistry } from '../stores/registry';

/** Tests read from each end of a new key's listing to tell which store it reads. */
const SAMPLE_PAGE = 50;

export interface StoresServiceDeps {
  db: Db;
  keys: KeyRing;
  stores: StoreRegistry;
  engine: SyncEngine;
  clock: () => number;
  fetch: typeof fetch;
  changed(): void;
  background: Pick<BackgroundSyncer, 'status' | 'keyChanged' | 'setSchedule' | 'forget'>;
}

export function createStoresService(deps: StoresServiceDeps): Services['stores'] {
  const { db } = deps;
  const { row } = deps.stores;
  const iso = () => new Date(deps.clock()).toISOString();

  function summary(store: StoreRow): StoreSummary {
    const progress = deps.engine.progress(store.id);
    const syncing = deps.engine.isRunning(store.id);
    return {
      id: store.id,
      name: store.name,
      baseUrl: store.baseUrl,
      kind: store.kind,
      keyStorage: store.keyStorage,
      sync: {
        state: syncing ? 'syncing' : stateOf(store.lastOutcome, store.lastSyncedAt),
        lastSyncedAt: store.lastSyncedAt,
        lastAttemptAt: store.lastFinishedAt,
        lastOutcome: store.lastOutcome,
        lastProblem: store.lastProblem,
        progress,
        resources: resourceTimes(getResourceSyncs(db, store.id)),
      },
      counts: storeCounts(db, store.id),
      edits: { ...outboxCounts(db, store.id), readOnly: readOnlyReason(db, store.id) },
      background: deps.background.status(store),
    };
  }

  /**
   * One cheap call proves the key and the address before anything is saved. With `sample`, the ids of
   * the listing's first and last pages come back too (two calls at most), to tell which store it reads.
   * Pages are read as the sync reads them: one record too large for a page is read around, and a lone
   * record too large to read at all still came with a 2xx answer, which is the proof the key needs.
   */
  async function checkKey(
    baseUrl: string,
    apiKey: string,
    sample = false,
  ): Promise<{ ids: string[]; listed: number }> {
    const client = createApiClient({
      baseUrl,
      apiKey,
      fetch: deps.fetch,
      maxAttempts: 2,
      timeoutMs: 10_000,
    });
    const perPage = sample ? SAMPLE_PAGE : 1;
    const pageAt = async (startPage: number): Promise<WalkedPage | null> => {
      for await (const page of client.walkTests({ perPage, startPage })) return page;
      return null;
    };
    const idsOf = (page: WalkedPage) => [
      ...page.items.map((t) => t.id),
      ...page.rejected.flatMap((r) => (r.id === null ? [] : [r.id])),
    ];
    try {
      const first = await pageAt(1);
      if (!first) return { ids: [], listed: 0 };
      const ids = idsOf(first);
      const { totalPages, totalCount } = first.pagination;
      if (sample && totalPages > 1) {
        const last = await pageAt(totalPages);
        if (last) ids.push(...idsOf(last));
      }
      return { ids, listed: totalCount };
    } catch (error) {
      if (error instanceof ApiError && acceptedButTooLarge(error)) return { ids: [], listed: 0 };
      if (error instanceof ApiError) throw new ProblemError(checkProblem(error, baseUrl));
      throw error;
    }
  }

  return {
    list: async () => deps.stores.rows().map(summary),
    async add(input) {
      const baseUrl = normaliseBaseUrl(input.baseUrl).href;
      await checkKey(baseUrl, input.apiKey);
      const id = randomUUID();
      // All or nothing: the account is journalled before the key is saved, and the store row
      // clears it in the same transaction. A failed insert deletes the key at once; a killed
      // process leaves the journal entry, and the next start-up deletes the key (cleanOrphanedKeys).
      journalKey(db, id, iso());
      const keyStorage = await deps.keys.save(id, input.apiKey, input.sessionOnly);
      try {
        db.transaction(() => {
          insertStore(db, {
            id,
            name: input.name,
            baseUrl,
            kind: 'api',
            keyStorage,
            createdAt: iso(),
          });
          clearKeyJournal(db, id);
        }).immediate();
      } catch (error) {
        await deps.keys.forget(id, keyStorage === 'keychain').then(
          () => {
            try {
              clearKeyJournal(db, id);
            } catch {
              // The journal entry stays; the next start-up finds the key already gone.
            }
          },
          (cleanup: unknown) =>
            console.error('[splitbook] could not delete the key of a failed add:', cleanup),
        );
        throw error;
      }
      deps.changed();
      return summary(row(id));
    },
    async openDemo() {
      const existing = getStoreRow(db, DEMO_STORE_ID);
      if (!existing) {
        const demo = deps.stores.demoStore();
        insertStore(db, {
          id: DEMO_STORE_ID,
          name: demo.name,
          baseUrl: demo.baseUrl,
          kind: 'demo',
          keyStorage: 'none',
          createdAt: iso(),
        });
        deps.engine
          .run(DEMO_STORE_ID)
          .catch((error: unknown) =>
            console.error('[splitbook] the demo sync ended without a report:', error),
          );
        deps.changed();
      }
      return summary(row(DEMO_STORE_ID));
    },
    async rename({ storeId, name }) {
      row(storeId);
      updateStore(db, storeId, { name });
      deps.changed();
      return summary(row(storeId));
    },
    async setKey({ storeId, apiKey, sessionOnly, onDifferentStore }) {
      const store = row(storeId);
      if (store.kind === 'demo')
        throw problem(
          'validation',
          400,
          'The demo store needs no key',
          'It runs inside Splitbook.',
        );
      const listing = await checkKey(store.baseUrl, apiKey, true);
      // Never mixed silently: a key that lists none of the cached tests reads another store.
      const identity = compareListing(cachedTestIds(db, storeId), listing.ids, listing.listed);
      const known = identity.same ? null : storeHoldingAny(db, listing.ids, storeId);
      if (known !== null && onDifferentStore !== 'replace') {
        // Offering to add it as a new store would show that store's tests twice: say which it is.
        throw new ProblemError(
          appProblem(
            'knownStore',
            409,
            `This key reads ${known.name}, already in Splitbook`,
            `The tests this key lists are those cached for ${known.name}, not ${store.name}'s. Adding it as a new store, or replacing ${store.name}'s cache with it, would show ${known.name}'s tests twice. Keep ${store.name}'s key, or use this one in ${known.name} (its menu ▸ Change API key).`,
          ),
        );
      }
      if (!identity.same && onDifferentStore !== 'replace') {
        throw new ProblemError(
          appProblem(
            'differentStore',
            409,
            'This key reads another store',
            `None of the ${identity.sampled} tests this key lists first and last is among the ${identity.cached} tests cached for ${store.name}; it lists ${identity.listed} tests of its own. Replace ${store.name}'s cache with them, or add the key as a new store.`,
          ),
        );
      }
      // A key put back as it was (a session's key after a restart) changes nothing to sync for; a
      // replaced key, or one given after a refusal, is synced with at once.
      const previous = await deps.keys.get(storeId, store.name).catch(() => null);
      const refused =
        store.lastOutcome === 'error' &&
        (store.lastProblem?.type === PROBLEM_TYPES.unauthorized ||
          store.lastProblem?.type === PROBLEM_TYPES.forbidden);
      const syncNow = !identity.same || refused || (previous !== null && previous !== apiKey);
      // A run with the old key ends first: nothing it writes mixes with what the new key reads.
      if (syncNow) {
        deps.engine.cancel(storeId);
        await deps.engine.whenIdle(storeId);
      }
      const keyStorage = await deps.keys.save(storeId, apiKey, sessionOnly);
      updateStore(db, storeId, { keyStorage });
      if (!identity.same) {
        // Another store's tests replace these: the cache, unsent edits and review memory go.
        resetStoreCache(db, storeId);
        deleteStoreOutbox(db, storeId);
        if (hasUserData(db)) forgetStoreReview(db, storeId);
      }
      // A new key may write where the old one could not, and background syncs start again.
      clearReadOnly(db, storeId);
      deps.stores.forget(storeId);
      deps.background.keyChanged(storeId);
      // Saved means synced: the store is read with its new key at once (a refused key's banner goes).
      if (syncNow)
        deps.engine
          .run(storeId)
          .catch((error: unknown) =>
            console.error('[splitbook] the sync after a new key ended without a report:', error),
          );
      deps.changed();
      return summary(row(storeId));
    },
    async remove({ storeId }) {
      const store = row(storeId);
      // A run of the store ends (cancelled) before its rows go: nothing writes to a store being removed.
      deps.engine.cancel(storeId);
      await deps.engine.whenIdle(storeId);
      await deps.keys.forget(storeId, store.keyStorage === 'keychain');
      deleteStore(db, storeId);
      // The store's unsent edits go with it: there is nowhere left to send them.
      deleteStoreOutbox(db, storeId);
      deps.stores.forget(storeId);
      deps.background.forget(storeId);
      deps.changed();
      return null;
    },
    async setBackgroundSync({ storeId, schedule }) {
      row(storeId);
      if (!canWriteBackground(db)) {
        throw problem(
          'readOnly',
          409,
          'The schedule cannot be saved',
          'The data folder cannot be written, so the store keeps its background sync schedule.',
        );
      }
      deps.background.setSchedule(storeId, schedule);
      deps.changed();
      return summary(row(storeId));
    },
  };
}

function resourceTimes(
  rows: readonly { resource: string; syncedAt: string }[],
): StoreSummary['sync']['resources'] {
  const at = (phase: SyncPhase) => rows.find((row) => row.resource === phase)?.syncedAt ?? null;
  return {
    tests: at('tests'),
    results: at('results'),
    campaigns: at('campaigns'),
    audiences: at('audiences'),
  };
}

/** A store's dot in the sidebar, from its last outcome; "syncing" is decided by the engine. */
function stateOf(
  outcome: StoreRow['lastOutcome'],
  lastSyncedAt: string | null,
): StoreSummary['sync']['state'] {
  if (outcome === null) return lastSyncedAt ? 'idle' : 'never';
  if (outcome === 'offline') return 'offline';
  if (outcome === 'error') return 'error';
  return 'idle';
}

/**
 * Deletes keys that an add left in the keychain without a store (the process died between the two
 * writes). Only accounts in this data folder's journal are touched: another data folder's keys in
 * the same keychain service are never guessed at. Never throws: a locked keychain is tried next start.
 */
export async function cleanOrphanedKeys(
  db: Db,
  keys: KeyRing,
  accounts: readonly string[],
): Promise<number> {
  let cleaned = 0;
  try {
    for (const account of accounts) {
      await keys.forget(account, true);
      clearKeyJournal(db, account);
      cleaned += 1;
    }
  } catch (error) {
    console.error('[splitbook] could not clean keys left by a failed add:', error);
  }
  return cleaned;
}

/**
 * What the first call of a new store's check means, naming the field to fix: only the API itself
 * (a problem-details answer) can refuse a key; any other answer from the address means it is not the API.
 */
/** A 2xx answer the client would not read whole: the store took the key, one record is too large. */
function acceptedButTooLarge(error: ApiError): boolean {
  return (
    error.kind === 'too-large' && error.status !== null && error.status >= 200 && error.status < 300
  );
}

export function checkProblem(error: ApiError, baseUrl: string): Problem {
  const where = `${baseUrl}${error.path.split('?')[0] ?? ''}`;
  const notTheApi = (answer: string) =>
    appProblem(
      'validation',
      400,
      'API base URL: no Store Experimentation API at this address',
      `${answer} Enter the store's address, such as https://acme.example.com (ending in /api/public/v1 is fine).`,
    );
  if (error.kind === 'unauthorized' && error.problemType !== null) {
    return appProblem(
      'unauthorized',
      401,
      'The API key was refused',
      'The store did not accept this key. Copy it again from the store admin (Settings ▸ API Keys).',
    );
  }
  if (error.kind === 'network' || error.kind === 'timeout') {
    return appProblem(
      'offline',
      503,
      `API base URL: ${error.host} cannot be reached`,
      `${error.detail} Check the address, and that this computer can reach it.`,
    );
  }
  if (error.kind === 'invalid-response') {
    return notTheApi(`${where} answered with something other than the API's JSON.`);
  }
  // A 4xx without the API's problem details (a web page, another service) is not the API answering.
  if (
    error.problemType === null &&
    error.status !== null &&
    error.status < 500 &&
    error.status !== 429
  ) {
    return notTheApi(`${where} answered ${error.status}.`);
  }
  return error.toProblem();
}
