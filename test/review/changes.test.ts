// The review memory against the simulated API over HTTP: snapshots only on change (across restarts),
// the Changes view for a scripted sequence of server-side changes, marking reviewed, notes that last.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Test, TestResults } from '#shared/api/index';
import type { ChangeLine } from '#shared/contract/index';
import type { Core } from '#core/types';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { allTestRows, startCore, syncStore, tempDir, testSecrets } from '../support/core';

const STORE = 'Acme Outdoor';
const data = tempDir('splitbook-review-');
let simulator: Simulator;
let served: ServedSimulator;
let core: Core;
let storeId = '';
/** One keychain for every restart, as the OS keychain would be. */
const secrets = testSecrets();
const restart = () => startCore(data.path, { clock: () => simulator.now(), secrets });

async function sync() {
  const report = await syncStore(core, storeId);
  expect(report.outcome).toBe('ok');
}

/** The server's truth for one test, as the cache would hold it after a sync. */
type Truth = { test: Test; results: TestResults | null };

function truth(): Map<string, Truth> {
  return new Map(
    simulator
      .snapshot(STORE)
      .tests.map((test) => [test.id, { test, results: simulator.results(STORE, test.id) }]),
  );
}

function snapshotCount(): number {
  const db = new Database(join(data.path, 'splitbook-user.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM test_snapshots').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const META: Record<string, (t: Test) => unknown> = {
  stage: (t) => t.stage,
  title: (t) => t.title,
  hypothesis: (t) => t.hypothesisDescription,
  priority: (t) => t.priority,
  surfaceArea: (t) => t.surfaceArea,
  impact: (t) => t.impact,
  effort: (t) => t.effort,
  implemented: (t) => t.implemented,
  tags: (t) =>
    t.tags
      .map((tag) => tag.name)
      .sort()
      .join(', '),
  campaign: (t) => t.campaign?.name ?? null,
  goal: (t) => t.goal,
  device: (t) => t.device,
  startAt: (t) => t.startAt,
  endAt: (t) => t.endAt,
};

/** What the Changes view must list between two truths: `testId field` keys, worked out from the server alone. */
function expectedChanges(before: Map<string, Truth>, after: Map<string, Truth>): string[] {
  const keys: string[] = [];
  for (const [id, was] of before) {
    const now = after.get(id);
    if (!now) {
      keys.push(`${id} removed`);
      continue;
    }
    if (was.test.status !== now.test.status) keys.push(`${id} status`);
    for (const [field, read] of Object.entries(META)) {
      if (read(was.test) !== read(now.test)) keys.push(`${id} ${field}`);
    }
    const t0 = was.results?.lifecycle.tier ?? null;
    const t1 = now.results?.lifecycle.tier ?? null;
    if (t0 !== t1 && !(t0 === null && t1 === 'learning')) keys.push(`${id} tier`);
    const l0 = was.results?.lifecycle.leadingVariant ?? null;
    const l1 = now.results?.lifecycle.leadingVariant ?? null;
    if (l0 !== l1) keys.push(`${id} leader`);
    const p0 = was.results?.variantProbabilityWin;
    const p1 = now.results?.variantProbabilityWin;
    if (p0 !== undefined && p1 !== undefined && Math.abs(p1 - p0) > 0.1)
      keys.push(`${id} probabilityToWin`);
  }
  for (const id of after.keys()) if (!before.has(id)) keys.push(`${id} added`);
  return keys.sort();
}

const keyOf = (line: ChangeLine) => `${line.testId} ${line.field}`;

async function changes(input: { since?: string | null } = {}) {
  return core.services.review.changes({
    storeId: null,
    since: input.since ?? null,
    probabilityThreshold: 0.1,
  });
}

beforeAll(async () => {
  simulator = createSimulator({ seed: 3, stores: [{ name: STORE, tests: 120 }] });
  served = await serveSimulator(simulator);
  core = await restart();
  const apiKey = simulator.stores[0]?.apiKey ?? '';
  const store = await core.services.stores.add({
    name: STORE,
    baseUrl: served.url,
    apiKey,
    sessionOnly: false,
  });
  storeId = store.id;
  await sync();
});

afterAll(async () => {
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

describe('the review memory', { timeout: 60_000 }, () => {
  it('keeps one baseline snapshot per test after the first sync, and lists no changes', async () => {
    expect(snapshotCount()).toBe(120);
    const report = await changes();
    expect(report.lines).toEqual([]);
    expect(report.stores).toMatchObject([{ storeId, count: 0, reviewedAt: null }]);
  });

  it('writes nothing when a sync finds nothing changed, also after a restart', async () => {
    await sync();
    expect(snapshotCount()).toBe(120);
    await core.close();
    core = await restart();
    await sync();
    expect(snapshotCount()).toBe(120);
  });

  it('lists exactly the scripted server-side changes, and marking reviewed clears them', async () => {
    const before = truth();
    const tests = [...before.values()].map((t) => t.test);
    const pick = (status: string, skip = 0) => {
      const found = tests.filter((t) => t.status === status)[skip];
      if (!found) throw new Error(`no ${status} test`);
      return found;
    };
    const now = new Date(simulator.now());
    const daysAgo = (n: number) => new Date(now.getTime() - n * 86_400_000).toISOString();
    // Status changes, another user's edits and a removed test, then two weeks of traffic (tiers move).
    simulator.touchTest(STORE, pick('draft').id, { status: 'active', startAt: daysAgo(3) });
    simulator.touchTest(STORE, pick('active').id, { status: 'paused' });
    simulator.touchTest(STORE, pick('active', 1).id, {
      status: 'completed',
      endAt: now.toISOString(),
    });
    simulator.touchTest(STORE, pick('completed').id, {
      title: 'Renamed by a colleague',
      priority: 'high',
    });
    simulator.removeTest(STORE, pick('draft', 1).id);
    simulator.advanceDays(14);
    const after = truth();
    const wanted = expectedChanges(before, after);
    expect(wanted.length).toBeGreaterThan(5);
    expect(wanted.some((k) => k.endsWith(' tier'))).toBe(true);

    const written = snapshotCount();
    await sync();
    expect(snapshotCount()).toBeGreaterThan(written);
    const report = await changes();
    expect(report.lines.map(keyOf).sort()).toEqual(wanted);
    const kinds = new Set(report.lines.map((l) => l.kind));
    for (const kind of ['started', 'paused', 'ended', 'removed', 'field', 'tier'])
      expect(kinds).toContain(kind);
    const renamed = report.lines.find((l) => l.field === 'title');
    expect(renamed).toMatchObject({ to: 'Renamed by a colleague', kind: 'field' });
    expect(renamed?.summary).toMatch(/Title changed on the server: .* → “Renamed by a colleague”/);
    expect(report.stores[0]?.count).toBe(wanted.length);

    await core.services.review.markReviewed({ storeId });
    expect((await changes()).lines).toEqual([]);
    // A date before the changes still shows them: the CLI's --since.
    expect((await changes({ since: before.size ? daysAgo(1) : null })).lines.length).toBe(
      wanted.length,
    );
  });

  it("keeps a test's history: baseline, then each change with from and to", async () => {
    const line = (await changes({ since: '2000-01-01' })).lines.find((l) => l.kind === 'ended');
    if (!line) throw new Error('no ended test');
    const history = await core.services.review.history({ storeId, testId: line.testId });
    expect(history[0]?.baseline).toBe(true);
    expect(history.at(-1)?.status).toBe('completed');
    expect(history.at(-1)?.changes).toContainEqual({
      field: 'status',
      from: 'active',
      to: 'completed',
    });
  });

  it('keeps notes across a restart, a re-key and a full re-sync, and finds tests by them', async () => {
    const [row] = await allTestRows(core, storeId);
    if (!row) throw new Error('no test');
    await core.services.notes.set({
      storeId,
      testId: row.id,
      body: 'Tell the client:\nzebracrossing wins on mobile',
    });
    await core.close();
    core = await restart();
    const apiKey = simulator.stores[0]?.apiKey ?? '';
    await core.services.stores.setKey({ storeId, apiKey, sessionOnly: true });
    // A full re-sync: the store's cached tests dropped, then synced again from scratch.
    const cache = new Database(join(data.path, 'splitbook.db'));
    cache.prepare('DELETE FROM tests WHERE store_id = ?').run(storeId);
    cache.close();
    const written = snapshotCount();
    await sync();
    expect(snapshotCount()).toBe(written);
    expect((await core.services.notes.get({ storeId, testId: row.id })).body).toBe(
      'Tell the client:\nzebracrossing wins on mobile',
    );
    const found = await core.services.tests.list(
      // Parsed by the service in the app; here the defaults are spelled out.
      {
        storeId,
        statuses: [],
        stage: null,
        goal: null,
        device: null,
        tag: null,
        campaignId: null,
        audienceId: null,
        search: 'zebracrossing',
        includeRemoved: false,
        hasAlerts: false,
        mine: false,
        sort: { key: 'title', dir: 'asc' },
        cursor: null,
        limit: 50,
      },
    );
    expect(found.rows.map((r) => r.id)).toEqual([row.id]);
  });

  it('keeps dated annotations per store', async () => {
    const added = await core.services.notes.addAnnotation({
      storeId,
      day: '2026-11-27',
      label: 'Black Friday promo',
    });
    expect(await core.services.notes.annotations({ storeId })).toEqual([added]);
    expect(await core.services.notes.removeAnnotation({ storeId, id: added.id })).toEqual({
      removed: true,
    });
    expect(await core.services.notes.annotations({ storeId })).toEqual([]);
  });
});
