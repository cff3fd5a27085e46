// The sync engine end to end: a real core (SQLite file, keychain) against the simulator over loopback HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLaunched } from '#shared/domain/lifecycle';
import {
  createSimulator,
  serveSimulator,
  type Simulator,
  type ServedSimulator,
} from '#simulator/index';
import type { Core } from '#core/types';
import { join } from 'node:path';
import { DATABASE_FILE } from '#core/index';
import { getStoreRow } from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import { allTestRows, startCore, syncStore, tempDir } from '../support/core';

const STORE = 'Acme Outdoor';

let sim: Simulator;
let served: ServedSimulator;
let dir: ReturnType<typeof tempDir>;
let core: Core;

async function addStore(options: { readOnly?: boolean } = {}) {
  const key = sim.stores.find(
    (s) => s.name === STORE && s.readOnly === (options.readOnly ?? false),
  );
  if (!key) throw new Error('no simulator key');
  return core.services.stores.add({
    name: STORE,
    baseUrl: served.url,
    apiKey: key.apiKey,
    sessionOnly: false,
  });
}

function launchedCount(): number {
  return sim.snapshot(STORE).tests.filter((t) => isLaunched(t.status)).length;
}

beforeEach(async () => {
  sim = createSimulator({
    seed: 7,
    stores: [
      { name: STORE, tests: 240 },
      { name: STORE, readOnly: true },
    ],
  });
  served = await serveSimulator(sim, { port: 0 });
  dir = tempDir();
  core = await startCore(dir.path);
});

afterEach(async () => {
  await core.close();
  await served.close();
  dir.remove();
});

describe('a full sync', () => {
  it("keeps the request rate it learnt from the store's 429s for the next run, across a restart", async () => {
    const store = await addStore();
    // A burst of two: the sync sends up to four requests at once, so it earns a 429 however slow this
    // machine is (a burst of four needed the client to go over 40 a second).
    sim.setRate({ capacity: 2, refillPerSecond: 40 });
    await syncStore(core, store.id);
    expect(sim.stats().rateLimited).toBeGreaterThan(0);
    await core.close();

    const db = openDatabase(join(dir.path, DATABASE_FILE));
    const learnt = getStoreRow(db, store.id)?.learnedRate ?? null;
    db.close();
    expect(learnt).not.toBeNull();
    expect(learnt).toBeGreaterThan(0);
    core = await startCore(dir.path);
  });

  it('emits one fact per event: a finished sync is one sync.finished and no stores.changed after it', async () => {
    const store = await addStore();
    const names: string[] = [];
    core.subscribe((event) => names.push(event.name));
    await syncStore(core, store.id);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const finished = names.indexOf('sync.finished');
    expect(names.filter((name) => name === 'sync.finished')).toHaveLength(1);
    expect(names.slice(finished + 1)).not.toContain('stores.changed');
    // The start of a sync is its own fact: the store list shows it as syncing, no data changed yet.
    expect(names[0]).toBe('sync.started');
    expect(names).not.toContain('stores.changed');
  });

  it('caches every test, the results of every launched test, active campaigns and custom audiences', async () => {
    const store = await addStore();
    const report = await syncStore(core, store.id);
    expect(report.outcome).toBe('ok');
    expect(report.problem).toBeNull();

    const truth = sim.snapshot(STORE);
    const rows = await allTestRows(core, store.id);
    expect(rows.map((r) => r.id).sort()).toEqual(truth.tests.map((t) => t.id).sort());
    expect(report.resultsFetched).toBe(launchedCount());

    const launched = truth.tests.find((t) => t.status === 'completed');
    if (!launched) throw new Error('fixture has no completed test');
    const results = await core.services.tests.results({ storeId: store.id, testId: launched.id });
    expect(results?.results).toEqual(sim.results(STORE, launched.id));

    const detail = await core.services.tests.get({ storeId: store.id, testId: launched.id });
    expect(detail.test).toEqual(launched);

    const campaigns = await core.services.campaigns.list({ storeId: store.id });
    expect(campaigns.map((c) => c.campaign.id).sort()).toEqual(
      truth.campaigns
        .filter((c) => c.status === 'active')
        .map((c) => c.id)
        .sort(),
    );
    const audiences = await core.services.audiences.list({ storeId: store.id });
    expect(audiences.map((a) => a.audience.id).sort()).toEqual(
      truth.customAudiences.map((a) => a.id).sort(),
    );

    const tags = await core.services.tags.list({ storeId: store.id });
    const usedTags = new Set(truth.tests.flatMap((t) => t.tags.map((tag) => tag.id)));
    expect(tags.map((t) => t.id).sort()).toEqual([...usedTags].sort());

    const [summary] = await core.services.stores.list({});
    expect(summary?.sync.state).toBe('idle');
    expect(summary?.sync.lastSyncedAt).toBe(report.finishedAt);
    for (const at of Object.values(summary?.sync.resources ?? {})) {
      expect(at !== null && at >= report.startedAt && at <= report.finishedAt).toBe(true);
    }
    expect(summary?.counts.tests).toBe(truth.tests.length);
  });

  it('fetches again only the results that can have changed', async () => {
    const store = await addStore();
    await syncStore(core, store.id);
    sim.resetStats();
    const again = await syncStore(core, store.id);
    expect(again.outcome).toBe('ok');
    // Results fetched within the freshness window are not asked for again, live or not.
    expect(sim.stats().byRoute['GET /tests/{id}/results']).toBeUndefined();

    // An edit made elsewhere moves updatedAt: that test's results are fetched again.
    const completed = sim.snapshot(STORE).tests.find((t) => t.status === 'completed');
    if (!completed) throw new Error('fixture has no completed test');
    sim.touchTest(STORE, completed.id, { title: 'Renamed in the store admin' });
    sim.resetStats();
    const third = await syncStore(core, store.id);
    expect(third.resultsFetched).toBe(1);
    const detail = await core.services.tests.get({ storeId: store.id, testId: completed.id });
    expect(detail.test.title).toBe('Renamed in the store admin');
  });

  it('marks tests missing from a complete listing as removed, not current', async () => {
    const store = await addStore();
    await syncStore(core, store.id);
    const [gone] = sim.snapshot(STORE).tests;
    if (!gone) throw new Error('no tests');
    sim.removeTest(STORE, gone.id);
    const report = await syncStore(core, store.id);
    expect(report.testsRemoved).toBe(1);
    expect((await allTestRows(core, store.id)).some((r) => r.id === gone.id)).toBe(false);
    const withRemoved = await allTestRows(core, store.id, true);
    expect(withRemoved.find((r) => r.id === gone.id)?.removed).toBe(true);
  });

  it('never runs two syncs of one store at once, and can be cancelled', async () => {
    sim.setFaults({ latencyMs: 20 });
    const store = await addStore();
    const first = await core.services.sync.start({ storeId: store.id });
    const second = await core.services.sync.start({ storeId: store.id });
    expect(first.started).toBe(true);
    expect(second.started).toBe(false);
    const finished = new Promise((resolve) =>
      core.subscribe((event) => event.name === 'sync.finished' && resolve(event.payload)),
    );
    expect((await core.services.sync.cancel({ storeId: store.id })).cancelled).toBe(true);
    expect(await finished).toMatchObject({ outcome: 'cancelled', problem: null });
  });
});

describe('a sync under faults', () => {
  it('rides out 429 storms, 5xx, resets and bad bodies, and sets a broken record aside', async () => {
    const store = await addStore();
    // A burst of two: the sync sends up to four requests at once, so it earns a 429 however slow this
    // machine is (a burst of four needed the client to go over 40 a second).
    sim.setRate({ capacity: 2, refillPerSecond: 40 });
    sim.setFaults({
      errorRate: 0.05,
      resetRate: 0.03,
      truncateRate: 0.03,
      malformedRate: 0.03,
      brokenTests: { count: 2 },
    });
    const report = await syncStore(core, store.id);
    const broken = sim.brokenTestIds(STORE);
    expect(broken).toHaveLength(2);
    expect(report.outcome).toBe('partial');
    expect(report.setAside).toBeGreaterThanOrEqual(2);
    expect(sim.stats().rateLimited).toBeGreaterThan(0);

    const { rows: issues } = await core.services.sync.issues({
      storeId: store.id,
      kind: null,
      cursor: null,
      limit: 500,
    });
    // Only the broken tests' records are set aside as tests, each for the field it breaks. (Not "the
    // newest issue is a test's": a results request the faults fail at every attempt, rare but
    // possible, is set aside after the listing and comes first.)
    const tests = issues.filter((i) => i.resource === 'test');
    expect(tests.map((i) => i.recordId).sort()).toEqual([...broken].sort());
    for (const issue of tests) expect(issue.error).toMatch(/title|status/);

    const rows = await allTestRows(core, store.id);
    const healthy = sim.snapshot(STORE).tests.filter((t) => !broken.includes(t.id));
    expect(rows.map((r) => r.id).sort()).toEqual(healthy.map((t) => t.id).sort());
    // A record set aside still exists on the server: nothing was marked removed.
    expect(report.testsRemoved).toBe(0);
  });
});

describe('offline', () => {
  it('ends with an "offline" outcome and keeps the cache fully readable', async () => {
    const store = await addStore();
    await syncStore(core, store.id);
    await served.close();
    const report = await syncStore(core, store.id);
    expect(report.outcome).toBe('offline');
    expect(report.problem?.title).toMatch(/reach/i);
    expect(await allTestRows(core, store.id)).toHaveLength(sim.snapshot(STORE).tests.length);
    const [summary] = await core.services.stores.list({});
    expect(summary?.sync.state).toBe('offline');
    expect(summary?.sync.lastAttemptAt).toBe(report.finishedAt);
    expect(summary?.sync.lastSyncedAt).not.toBe(report.finishedAt);
    served = await serveSimulator(sim, { port: 0 }); // for afterEach
  });
});

describe('stores', () => {
  it('refuses a wrong key before saving anything', async () => {
    await expect(
      core.services.stores.add({
        name: 'Wrong',
        baseUrl: served.url,
        apiKey: 'sk_wrong',
        sessionOnly: false,
      }),
    ).rejects.toMatchObject({ problem: { status: 401, title: 'The API key was refused' } });
    expect(await core.services.stores.list({})).toEqual([]);
  });

  it('renames, re-keys and removes a store with all its cached rows', async () => {
    const store = await addStore();
    await syncStore(core, store.id);
    expect((await core.services.stores.rename({ storeId: store.id, name: 'Acme (EU)' })).name).toBe(
      'Acme (EU)',
    );
    const key = sim.stores.find((s) => s.name === STORE && !s.readOnly)?.apiKey ?? '';
    expect(
      (await core.services.stores.setKey({ storeId: store.id, apiKey: key, sessionOnly: true }))
        .keyStorage,
    ).toBe('session');
    await core.services.stores.remove({ storeId: store.id });
    expect(await core.services.stores.list({})).toEqual([]);
    expect(await allTestRows(core, null, true)).toEqual([]);
    expect(await core.services.campaigns.list({ storeId: null })).toEqual([]);
  });

  it('opens the demo store in-process and syncs it with no key and no network', async () => {
    const demoCore = await startCore(tempDir().path, { demo: { tests: 60 } });
    const finished = new Promise((resolve) =>
      demoCore.subscribe((event) => event.name === 'sync.finished' && resolve(event.payload)),
    );
    const demo = await demoCore.services.stores.openDemo({});
    expect(demo).toMatchObject({ kind: 'demo', keyStorage: 'none' });
    expect(await finished).toMatchObject({ outcome: 'ok' });
    expect(await allTestRows(demoCore, demo.id)).toHaveLength(60);
    await demoCore.close();
  });
});
