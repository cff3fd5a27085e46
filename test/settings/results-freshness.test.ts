// The results-freshness setting and Refresh now, end to end: a real core (SQLite files, keychain) against the simulator over loopback HTTP.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { USER_DATA_FILE } from '#core/create-core';
import { dispatch } from '../../src/main/hosts/common/dispatch';
import type { Core } from '#core/types';
import type { CoreEvent, ResultsFreshness } from '#shared/contract/index';
import { DEFAULT_SETTINGS } from '#shared/contract/index';
import { PROBLEM_TYPES, ProblemError } from '#shared/problem';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { startCore, syncStore, tempDir, testSecrets } from '../support/core';
import type { SecretStore } from '#core/secrets/index';

const STORE = 'Acme Outdoor';
const MINUTE = 60_000;

let sim: Simulator;
let served: ServedSimulator;
let dir: ReturnType<typeof tempDir>;
let core: Core;
let secrets: SecretStore;
/** The core's and the simulator's clocks move together. */
let offsetMs = 0;
const clock = () => Date.now() + offsetMs;
/** Paths of the results requests the simulator answered. */
let resultRequests: string[] = [];

beforeEach(async () => {
  offsetMs = 0;
  resultRequests = [];
  sim = createSimulator({
    seed: 5,
    stores: [{ name: STORE, tests: 120 }],
    now: clock,
    onRequest: (entry) => {
      if (/\/tests\/[^/]+\/results$/.test(entry.path)) resultRequests.push(entry.path);
    },
  });
  served = await serveSimulator(sim, { port: 0 });
  dir = tempDir();
  secrets = testSecrets();
  core = await startCore(dir.path, { clock, secrets });
});

afterEach(async () => {
  await core.close();
  await served.close().catch(() => undefined);
  dir.remove();
});

async function addStore(sessionOnly = false) {
  const key = sim.stores.find((s) => s.name === STORE && !s.readOnly);
  if (!key) throw new Error('no simulator key');
  return core.services.stores.add({
    name: STORE,
    baseUrl: served.url,
    apiKey: key.apiKey,
    sessionOnly,
  });
}

function activeIds(): string[] {
  return sim
    .snapshot(STORE)
    .tests.filter((t) => t.status === 'active')
    .map((t) => t.id);
}

/** Results asked for by a re-sync `minutes` after the first one, under `freshness`. */
async function resyncAfter(freshness: ResultsFreshness, minutes: number) {
  const store = await addStore();
  await core.services.settings.set({ resultsFreshness: freshness });
  await syncStore(core, store.id);
  resultRequests = [];
  offsetMs += minutes * MINUTE;
  const report = await syncStore(core, store.id);
  expect(report.outcome).toBe('ok');
  const asked = new Set(resultRequests.map((path) => path.split('/').at(-2)));
  return { asked, active: activeIds() };
}

async function problemOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ProblemError)) throw new Error(`expected a problem, got ${String(error)}`);
  return error.problem;
}

describe('the results-freshness setting', () => {
  it('defaults to one hour, round-trips through the core, is announced, and survives a reopen', async () => {
    expect(await core.services.settings.get({})).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS.resultsFreshness).toBe('1h');
    const events: CoreEvent[] = [];
    core.subscribe((event) => events.push(event));

    const sixHours = { ...DEFAULT_SETTINGS, resultsFreshness: '6h' };
    expect(await core.services.settings.set({ resultsFreshness: '6h' })).toEqual(sixHours);
    expect(events).toContainEqual({ name: 'settings.changed', payload: sixHours });
    // A patch naming nothing keeps what is set.
    expect(await core.services.settings.set({})).toEqual(sixHours);

    await core.close();
    core = await startCore(dir.path, { clock, secrets });
    expect(await core.services.settings.get({})).toEqual(sixHours);

    // It lives in the user's own file, not in the re-syncable cache.
    const user = new Database(join(dir.path, USER_DATA_FILE), { readonly: true });
    const row = user.prepare(`SELECT value FROM settings WHERE key = 'resultsFreshness'`).get();
    user.close();
    expect(row).toEqual({ value: '"6h"' });
  });

  it('refuses an invalid value or an unknown setting with a problem naming it, and keeps the old value', async () => {
    const bad = await dispatch(core, 'settings.set', { resultsFreshness: '5m' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.problem.status).toBe(400);
      expect(bad.problem.detail).toContain('resultsFreshness');
    }
    const unknown = await dispatch(core, 'settings.set', { theme: 'dark' });
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.problem.detail).toContain("'theme'");

    // In-process callers (the CLI) get the same refusal from the service itself.
    const direct = await problemOf(
      core.services.settings.set({ resultsFreshness: 'often' as ResultsFreshness }),
    );
    expect(direct.type).toBe(PROBLEM_TYPES.validation);
    expect(direct.title).toBe('Invalid setting');
    expect(await core.services.settings.get({})).toEqual(DEFAULT_SETTINGS);
  });

  it('at one hour, a re-sync 20 minutes later asks for no active test’s results', async () => {
    const { asked, active } = await resyncAfter('1h', 20);
    expect(active.length).toBeGreaterThan(0);
    expect(active.filter((id) => asked.has(id))).toEqual([]);
  });

  it('at 15 minutes, a re-sync 20 minutes later asks for every active test’s results again', async () => {
    const { asked, active } = await resyncAfter('15m', 20);
    expect(active.length).toBeGreaterThan(0);
    expect(active.filter((id) => !asked.has(id))).toEqual([]);
  });

  it('"only when I ask" never re-fetches an active test on its own, only one whose updatedAt moved', async () => {
    const store = await addStore();
    await core.services.settings.set({ resultsFreshness: 'manual' });
    await syncStore(core, store.id);
    const [touched, ...others] = activeIds();
    if (!touched) throw new Error('fixture has no active test');
    sim.touchTest(STORE, touched, { title: 'Retitled elsewhere' });
    resultRequests = [];
    offsetMs += 3 * 24 * 60 * MINUTE;
    await syncStore(core, store.id);
    const asked = new Set(resultRequests.map((path) => path.split('/').at(-2)));
    expect(asked.has(touched)).toBe(true);
    expect(others.filter((id) => asked.has(id))).toEqual([]);
  });
});

describe('Refresh now (tests.refreshResults)', () => {
  it("fetches one test's results over HTTP whatever their age, updates the detail and says so", async () => {
    const store = await addStore();
    await core.services.settings.set({ resultsFreshness: 'manual' });
    await syncStore(core, store.id);
    const [testId] = activeIds();
    if (!testId) throw new Error('fixture has no active test');
    const before = await core.services.tests.results({ storeId: store.id, testId });
    // A day later the store has a day more of figures; the cache still has yesterday's.
    offsetMs += 24 * 60 * MINUTE;
    const events: CoreEvent[] = [];
    core.subscribe((event) => events.push(event));
    resultRequests = [];

    const asked = clock();
    const refreshed = await core.services.tests.refreshResults({ storeId: store.id, testId });
    expect(refreshed.found).toBe(true);
    expect(Date.parse(refreshed.fetchedAt ?? '')).toBeGreaterThanOrEqual(asked);
    expect(resultRequests).toEqual([expect.stringContaining(`/tests/${testId}/results`)]);
    const after = await core.services.tests.results({ storeId: store.id, testId });
    expect(after?.fetchedAt).toBe(refreshed.fetchedAt);
    expect(after?.results).toEqual(sim.results(STORE, testId));
    expect(after?.results).not.toEqual(before?.results);
    expect(events).toContainEqual({
      name: 'results.changed',
      payload: { storeId: store.id, testId },
    });
  });

  it('runs once for one test when asked twice at once', async () => {
    const store = await addStore();
    await syncStore(core, store.id);
    const [testId] = activeIds();
    if (!testId) throw new Error('fixture has no active test');
    resultRequests = [];
    const [a, b] = await Promise.all([
      core.services.tests.refreshResults({ storeId: store.id, testId }),
      core.services.tests.refreshResults({ storeId: store.id, testId }),
    ]);
    expect(a).toEqual(b);
    expect(resultRequests).toHaveLength(1);
  });

  it('while the server is down: a clear "cannot reach" problem, and the cached results stay', async () => {
    const store = await addStore();
    await syncStore(core, store.id);
    const [testId] = activeIds();
    if (!testId) throw new Error('fixture has no active test');
    const cached = await core.services.tests.results({ storeId: store.id, testId });
    await served.close();

    const p = await problemOf(core.services.tests.refreshResults({ storeId: store.id, testId }));
    expect(p.type).toBe(PROBLEM_TYPES.offline);
    expect(p.title).toBe("Cannot reach the store's API");
    expect(await core.services.tests.results({ storeId: store.id, testId })).toEqual(cached);
  });

  it('without a key (a session key gone after a restart) or with a refused key: a problem saying so', async () => {
    const store = await addStore(true);
    await syncStore(core, store.id);
    const [testId] = activeIds();
    if (!testId) throw new Error('fixture has no active test');
    await core.close();
    core = await startCore(dir.path, { clock, secrets });
    const missing = await problemOf(
      core.services.tests.refreshResults({ storeId: store.id, testId }),
    );
    expect(missing.type).toBe(PROBLEM_TYPES.unauthorized);
    expect(missing.title).toBe('No API key for this store');

    // A key the store no longer accepts, found in the keychain at the next start.
    await secrets.set(store.id, 'sk_revoked_key_000000000000');
    await core.close();
    core = await startCore(dir.path, { clock, secrets });
    const refused = await problemOf(
      core.services.tests.refreshResults({ storeId: store.id, testId }),
    );
    expect(refused.type).toBe(PROBLEM_TYPES.unauthorized);
    expect(refused.title).toBe('The API key was refused');
    await secrets.delete(store.id);
  });

  it('a test without results on the server keeps the "no results" meaning', async () => {
    const store = await addStore();
    await syncStore(core, store.id);
    const draft = sim.snapshot(STORE).tests.find((t) => t.status === 'draft');
    if (!draft) throw new Error('fixture has no draft');
    const refreshed = await core.services.tests.refreshResults({
      storeId: store.id,
      testId: draft.id,
    });
    expect(refreshed).toEqual({ found: false, fetchedAt: null });
    expect(await core.services.tests.results({ storeId: store.id, testId: draft.id })).toBeNull();
  });
});
