// The simulated Store Experimentation Public API: seeded stores behind a web-standard handler, with an
// in-process fetch, a movable clock, rate limits, fault injection, stats, and ground truth for tests.
import type {
  Campaign,
  CustomAudience,
  DefaultAudience,
  Tag,
  Test,
  TestResults,
} from '#shared/api/index';
import { DAY_MS, startOfDay } from './generate';
import {
  NO_FAULTS,
  breakRecord,
  createFaultInjector,
  mergeFaults,
  pickBrokenIds,
  type FaultKind,
  type FaultsInput,
} from './faults';
import { createHandler, type Handler, type KeyGrant } from './handler';
import { IN_PROCESS_BASE_URL, createInProcessFetch } from './in-process-fetch';
import { RateLimit, createRateLimiter } from './limiter';
import { createRandom, hashSeed } from './random';
import { createRequestStats, type RequestLogEntry, type SimulatorStats } from './request-stats';
import { StoreState, nextUpdatedAt } from './store-state';
import { DEFAULT_STORES } from './vocabulary';

export { serveSimulator, type ServedSimulator, type ServeOptions } from './http';
export { API_PREFIX, DEFAULT_PER_PAGE, MAX_PER_PAGE } from './routes';
export { METRICS, metricOfGoal } from './metrics';
export {
  FAULT_KINDS,
  SimulatedConnectionReset,
  type FaultKind,
  type Faults,
  type FaultsInput,
} from './faults';
export { PROBLEM_TYPE_BASE } from './responses';
export { IN_PROCESS_BASE_URL } from './in-process-fetch';
export type { Handler } from './handler';
export type { RateLimit } from './limiter';
export type { RequestLogEntry, SimulatorStats } from './request-stats';

/** One API key. Entries with the same name share one store (e.g. a second, read-only key). */
export type StoreOption = {
  name: string;
  /** Default: 'sk_test_' + 32 hex digits derived from the seed and the store's name. */
  apiKey?: string;
  readOnly?: boolean;
  /** Tests in the store; the first entry of a name decides. */
  tests?: number;
};

export type SimulatorOptions = {
  /** Same seed (and same day of `now`), same data. Default 1. */
  seed?: number;
  /** Default: Acme Outdoor, Nordic Home, Demo store, and a read-only key for Acme Outdoor. */
  stores?: readonly StoreOption[];
  /** Tests per store when an entry does not say. Default 250. */
  testsPerStore?: number;
  /** Token bucket per key; null or absent: no limit. */
  rate?: RateLimit | null;
  faults?: FaultsInput;
  /** The clock (ms). Default Date.now. Generated dates are relative to the day it shows at creation. */
  now?: () => number;
  /** Called once per request, never with the key. */
  onRequest?: (entry: RequestLogEntry) => void;
};

export type SimulatorKey = { id: string; name: string; apiKey: string; readOnly: boolean };

/** Ground truth of a store, deep-copied: what the API would serve, without faults. */
export type StoreSnapshot = {
  id: string;
  name: string;
  /** In listing order. */
  tests: Test[];
  /** All campaigns, active or not. */
  campaigns: Campaign[];
  customAudiences: CustomAudience[];
  defaultAudiences: DefaultAudience[];
  tags: Tag[];
};

export type Simulator = {
  handler: Handler;
  /** fetch bound to the handler: needs absolute URLs (e.g. IN_PROCESS_BASE_URL + API_PREFIX + '/tests'). */
  fetch: typeof fetch;
  baseUrl: string;
  /** One entry per API key. */
  stores: SimulatorKey[];
  /** The simulated time: the clock plus the days advanced. */
  now(): number;
  /** Moves simulated time; live tests gain a day of results per day. */
  advanceDays(days: number): void;
  setFaults(faults: FaultsInput): void;
  /** The next `count` requests (default 1) get this fault, whatever the rates say. */
  failNext(kind: FaultKind, count?: number): void;
  setRate(rate: RateLimit | null): void;
  stats(): SimulatorStats;
  resetStats(): void;
  /** `store` is a store's id or name. */
  snapshot(store: string): StoreSnapshot;
  results(store: string, testId: string): TestResults | null;
  /** Tests currently served broken by the `brokenTests` fault. */
  brokenTestIds(store: string): string[];
  /** Adds a draft created now (with `overrides` applied); it heads the listing. */
  addTest(store: string, overrides?: Partial<Test>): Test;
  /** Deletes a test: listings stop showing it, GET answers 404. */
  removeTest(store: string, testId: string): boolean;
  /**
   * The next `count` writes (POST, PATCH) are applied, then their answer is lost: 'reset' drops the
   * connection, 'hang' never answers (for a client killed while it waits).
   */
  loseAnswers(count?: number, mode?: 'reset' | 'hang'): void;
  /** Applies `changes` and moves `updatedAt` (unless `changes` sets it), as an edit made elsewhere. */
  touchTest(store: string, testId: string, changes?: Partial<Test>): Test;
  /**
   * Plants a sample-ratio mismatch: from now on the test's variant loses `variantLoss` (0..1, default
   * 0.2) of the visitors its configured traffic would give it, as a broken redirect would.
   */
  plantSampleRatioMismatch(store: string, testId: string, variantLoss?: number): void;
};

export const DEFAULT_TESTS_PER_STORE = 250;

function checkCount(what: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 1_000_000)
    throw new RangeError(`${what} must be an integer from 0 to 1000000`);
  return value;
}

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const seed = options.seed ?? 1;
  const clockNow = options.now ?? Date.now;
  const anchor = startOfDay(clockNow());
  let offsetMs = 0;
  const simulatedNow = () => clockNow() + offsetMs;
  const testsPerStore = checkCount(
    'testsPerStore',
    options.testsPerStore ?? DEFAULT_TESTS_PER_STORE,
  );

  // Stores and keys: the first entry of a name creates the store, every entry adds a key.
  const byName = new Map<string, StoreState>();
  const grants = new Map<string, KeyGrant>();
  const keys: SimulatorKey[] = [];
  const entries: readonly StoreOption[] = options.stores ?? DEFAULT_STORES;
  for (const entry of entries) {
    let store = byName.get(entry.name);
    if (store === undefined) {
      store = new StoreState({
        id: createRandom(hashSeed(seed, 'store-id', entry.name)).uuid(),
        name: entry.name,
        seed: hashSeed(seed, 'store', entry.name),
        anchor,
        testCount: checkCount(`tests of '${entry.name}'`, entry.tests ?? testsPerStore),
      });
      byName.set(entry.name, store);
    }
    const readOnly = entry.readOnly ?? false;
    const nth = keys.filter((key) => key.name === entry.name).length;
    const apiKey =
      entry.apiKey ?? `sk_test_${createRandom(hashSeed(seed, 'api-key', entry.name, nth)).hex(32)}`;
    if (grants.has(apiKey)) throw new RangeError(`Duplicate API key for store '${entry.name}'`);
    grants.set(apiKey, { store, readOnly });
    keys.push({ id: store.id, name: store.name, apiKey, readOnly });
  }

  function storeOf(ref: string): StoreState {
    const store = byName.get(ref) ?? [...byName.values()].find((each) => each.id === ref);
    if (store === undefined) throw new RangeError(`No simulated store '${ref}'`);
    return store;
  }

  function testOf(store: StoreState, testId: string): Test {
    const test = store.getTest(testId);
    if (test === undefined) throw new RangeError(`No test ${testId} in store '${store.name}'`);
    return test;
  }

  const faults = createFaultInjector(seed, mergeFaults(NO_FAULTS, options.faults ?? {}));
  let broken = new Map<string, Set<string>>();
  /** Which tests the brokenTests fault breaks, fixed when the faults are set. */
  function resolveBroken() {
    const spec = faults.current().brokenTests;
    broken = new Map(
      [...byName.values()].map((store) => [
        store.id,
        spec === null ? new Set<string>() : pickBrokenIds(store.listIds(), spec),
      ]),
    );
  }
  resolveBroken();

  let limiter = createRateLimiter(
    options.rate === undefined || options.rate === null ? null : RateLimit.parse(options.rate),
  );
  const stats = createRequestStats();

  const lostAnswers: ('reset' | 'hang')[] = [];
  const handler = createHandler({
    loseAnswer: () => lostAnswers.shift() ?? null,
    grantOf: (apiKey) => grants.get(apiKey),
    faults,
    limiter: () => limiter,
    stats,
    clockNow,
    simulatedNow,
    present(store, test) {
      const spec = faults.current().brokenTests;
      return spec !== null && broken.get(store.id)?.has(test.id)
        ? breakRecord(test, spec.kind)
        : test;
    },
    onRequest: options.onRequest,
  });

  return {
    handler,
    fetch: createInProcessFetch(handler),
    baseUrl: IN_PROCESS_BASE_URL,
    stores: keys.map((key) => ({ ...key })),
    now: simulatedNow,
    advanceDays(days) {
      if (!Number.isFinite(days)) throw new RangeError('advanceDays needs a finite number of days');
      offsetMs += days * DAY_MS;
    },
    setFaults(changes) {
      faults.set(changes);
      if (changes.brokenTests !== undefined) resolveBroken();
    },
    failNext(kind, count = 1) {
      faults.failNext(kind, checkCount('failNext count', count));
    },
    setRate(rate) {
      limiter = createRateLimiter(rate === null ? null : RateLimit.parse(rate));
    },
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    snapshot(ref) {
      const store = storeOf(ref);
      return structuredClone({
        id: store.id,
        name: store.name,
        tests: store.allTests(),
        campaigns: store.campaignsWithProgress(),
        customAudiences: store.customAudiences,
        defaultAudiences: [...store.defaultAudiences],
        tags: store.tags,
      });
    },
    results(ref, testId) {
      const store = storeOf(ref);
      return structuredClone(store.resultsOf(testOf(store, testId), simulatedNow()));
    },
    brokenTestIds: (ref) => [...(broken.get(storeOf(ref).id) ?? [])],
    addTest(ref, overrides = {}) {
      const store = storeOf(ref);
      const draft = store.addDraft(simulatedNow());
      const test = { ...draft, ...overrides, id: draft.id };
      store.saveTest(test);
      return structuredClone(test);
    },
    removeTest: (ref, testId) => storeOf(ref).removeTest(testId),
    loseAnswers(count = 1, mode = 'reset') {
      for (let i = 0; i < checkCount('loseAnswers count', count); i++) lostAnswers.push(mode);
    },
    plantSampleRatioMismatch(ref, testId, variantLoss = 0.2) {
      if (!(variantLoss >= 0 && variantLoss < 1))
        throw new RangeError('variantLoss must be from 0 to below 1');
      const store = storeOf(ref);
      testOf(store, testId);
      store.plantMismatch(testId, variantLoss);
    },
    touchTest(ref, testId, changes = {}) {
      const store = storeOf(ref);
      const previous = testOf(store, testId);
      const test = {
        ...previous,
        ...changes,
        id: previous.id,
        updatedAt: changes.updatedAt ?? nextUpdatedAt(previous.updatedAt, simulatedNow()),
      };
      store.saveTest(test);
      return structuredClone(test);
    },
  };
}
