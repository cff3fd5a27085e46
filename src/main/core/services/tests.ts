// `tests.*`: the test list, its facets, one test and its results, read from the cache (offline or not),
// and Refresh now: one test's results fetched from its store at once.
import type { CoreEvent, RefreshedResults, Services } from '#shared/contract/index';
import { problem, ProblemError } from '#shared/problem';
import { ApiError } from '../api';
import { getResults, getTestDetail } from '../db/cache/reads';
import { listTests, testFacets } from '../db/cache/test-list';
import { upsertResults } from '../decisions/results';
import type { Db } from '../db/types';
import { storageProblem } from '../db/storage-errors';
import type { StoreRegistry } from '../stores/registry';
import { fetchScreenshot, screenshotUrlOf } from '../screenshots';

export interface TestsServiceDeps {
  db: Db;
  /** The store's API client with its own limiter, the one a sync uses. */
  stores: Pick<StoreRegistry, 'clientFor'>;
  clock: () => number;
  emit(event: CoreEvent): void;
  /** The core's fetch, for a side's screenshot (never a store's client: no key goes with it). */
  fetch: typeof fetch;
}

export function createTestsService(deps: TestsServiceDeps): Services['tests'] {
  const { db, stores, clock, emit } = deps;
  /** Refreshes in flight by `storeId/testId`: a second ask while one runs gets the same answer. */
  const refreshing = new Map<string, Promise<RefreshedResults>>();

  async function refresh(storeId: string, testId: string): Promise<RefreshedResults> {
    const detail = getTestDetail(db, storeId, testId);
    if (!detail)
      throw problem('notFound', 404, 'Test not found', `No cached test ${testId} in this store.`);
    try {
      // No key at hand (a locked keychain, a session key gone) is a ProblemError that says so.
      const client = await stores.clientFor(storeId);
      const results = await client.getResults(testId);
      const fetchedAt = new Date(clock()).toISOString();
      upsertResults(db, {
        storeId,
        testId,
        results,
        fetchedAt,
        // Recorded as of the test the cache holds now, as a sync would: the next sync sees it fresh.
        testUpdatedAt: detail.test.updatedAt,
        testStatus: detail.test.status,
      });
      emit({ name: 'results.changed', payload: { storeId, testId } });
      return { found: true, fetchedAt };
    } catch (error) {
      // "Not found" keeps its meaning of a sync's: the store has no results for this test yet.
      if (error instanceof ApiError && error.status === 404)
        return { found: false, fetchedAt: null };
      // Offline, unreachable, a refused key, a rate limit: the store's words; the cached results stay.
      if (error instanceof ApiError) throw new ProblemError(error.toProblem());
      if (error instanceof ProblemError) throw error;
      const storage = storageProblem(error);
      if (storage) throw new ProblemError(storage);
      throw error;
    }
  }

  return {
    list: async (input) => listTests(db, input),
    facets: async (filter) => testFacets(db, filter),
    async get({ storeId, testId }) {
      const detail = getTestDetail(db, storeId, testId);
      if (!detail)
        throw problem('notFound', 404, 'Test not found', `No cached test ${testId} in this store.`);
      return detail;
    },
    results: async ({ storeId, testId }) => getResults(db, storeId, testId),
    async screenshot({ storeId, testId, side }) {
      const detail = getTestDetail(db, storeId, testId);
      if (!detail)
        throw problem('notFound', 404, 'Test not found', `No cached test ${testId} in this store.`);
      const url = screenshotUrlOf(detail.test, side);
      if (url === null)
        throw problem(
          'notFound',
          404,
          'No screenshot',
          `The store gives no web address of a screenshot for the ${side}.`,
        );
      const image = await fetchScreenshot(deps.fetch, url);
      return { side, url, dataUrl: image.dataUrl, bytes: image.bytes };
    },
    refreshResults({ storeId, testId }) {
      const key = `${storeId}/${testId}`;
      const running = refreshing.get(key);
      if (running) return running;
      const done = refresh(storeId, testId).finally(() => refreshing.delete(key));
      refreshing.set(key, done);
      return done;
    },
  };
}
