// Calls written with the results a sync fetched (real HTTP, the simulator), read back through tests.list,
// tests.get and decisions.list equal to decideTest's on the same data; settings and plans make them again.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import {
  CALL_WORDS,
  decideTest,
  DEFAULT_DECISION_SETTINGS,
  type DecisionSettings,
  type SettingsChange,
} from '#shared/domain/decisions/index';
import type { Core } from '#core/types';
import { ProblemError } from '#shared/problem';
import { addSimulatorStores, allTestRows, startCore, tempDir } from '../support/core';
import { asStored, nextEvent, testsWithResults } from './support';

const data = tempDir('splitbook-decisions-');
const simulator = createSimulator({
  seed: 11,
  stores: [
    { name: 'Acme', tests: 40 },
    { name: 'Nordic', tests: 25 },
  ],
});
let served: ServedSimulator;
let core: Core;
let acme = '';
let nordic = '';

beforeAll(async () => {
  served = await serveSimulator(simulator);
  core = await startCore(data.path, { clock: () => simulator.now() });
  const ids = await addSimulatorStores(core, simulator, served.url);
  acme = ids['Acme'] ?? '';
  nordic = ids['Nordic'] ?? '';
}, 60_000);

afterAll(async () => {
  await core?.close();
  await served?.close().catch(() => undefined);
  data.remove();
});

/** What every call of a store must be: decideTest on the same test and results with these settings. */
async function expectCalls(
  storeId: string,
  settings: DecisionSettings,
  planSource: 'setting' | 'store',
) {
  const cases = await testsWithResults(core, storeId);
  expect(cases.length).toBeGreaterThan(10);
  const rows = new Map((await allTestRows(core, storeId)).map((row) => [row.id, row]));
  const listed = new Map(
    (await core.services.decisions.list({ storeId })).rows.map((row) => [row.testId, row]),
  );
  // Every change of the settings is recorded from the day it is made; the ones of one day are one, and
  // one that leaves the settings as they were that morning (the defaults, here) is none.
  const today = new Date(simulator.now()).toISOString().slice(0, 10);
  const changes: SettingsChange[] =
    JSON.stringify(settings) === JSON.stringify(DEFAULT_DECISION_SETTINGS)
      ? []
      : [{ from: today, settings: DEFAULT_DECISION_SETTINGS, planSource: 'setting', source: 'settings' }];
  for (const { test, results } of cases) {
    const expected = asStored(decideTest({ test, results, settings, planSource, changes }));
    const detail = await core.services.tests.get({ storeId, testId: test.id });
    expect(detail.decision, test.title).toEqual(expected);
    expect(rows.get(test.id), test.title).toMatchObject({
      decision: expected?.call ?? null,
      decisionWords: expected?.words ?? null,
      decisionReason: expected?.reason ?? null,
      daysToDecision: expected?.daysToDecision ?? null,
      goalLift: expected?.goal?.lift ?? null,
      goalPWin: expected?.goal?.pWin ?? null,
    });
    if (expected === null) {
      expect(listed.has(test.id)).toBe(false);
      continue;
    }
    expect(listed.get(test.id), test.title).toMatchObject({
      storeId,
      testId: test.id,
      title: test.title,
      status: test.status,
      goal: test.goal,
      call: expected.call,
      words: expected.words,
      reason: expected.reason,
      basis: expected.basis,
      daysToDecision: expected.daysToDecision,
      decisionDate: expected.decisionDate,
      goalLift: expected.goal?.lift ?? null,
      goalPWin: expected.goal?.pWin ?? null,
    });
  }
  // Tests without results have no call.
  for (const row of rows.values()) {
    if (!cases.some((c) => c.test.id === row.id)) expect(row.decision).toBeNull();
  }
}

describe('decisions made with the results', { timeout: 60_000 }, () => {
  it("are those of decideTest on the same data, in the list, the test's detail and the Decisions view", async () => {
    await expectCalls(acme, DEFAULT_DECISION_SETTINGS, 'setting');
    await expectCalls(nordic, DEFAULT_DECISION_SETTINGS, 'setting');
  });

  it('lists the calls needing the consultant first, by store, then running tests by days to decision', async () => {
    const list = await core.services.decisions.list({ storeId: null });
    const needing = (call: string) => call !== 'keep_running' && call !== 'paused';
    const firstRunning = list.rows.findIndex((row) => !needing(row.call));
    const head = firstRunning === -1 ? list.rows : list.rows.slice(0, firstRunning);
    const rest = firstRunning === -1 ? [] : list.rows.slice(firstRunning);
    expect(head.every((row) => needing(row.call))).toBe(true);
    // Running tests by days to decision, then paused ones (no forecast while they wait).
    const firstPaused = rest.findIndex((row) => row.call === 'paused');
    const tail = firstPaused === -1 ? rest : rest.slice(0, firstPaused);
    expect(tail.every((row) => row.call === 'keep_running')).toBe(true);
    expect(rest.slice(tail.length).every((row) => row.call === 'paused')).toBe(true);
    expect(list.needCall).toBe(head.length);
    // Grouped by store in the store list's order (Acme was added first).
    const storesInOrder = head
      .map((row) => row.storeId)
      .filter((id, i, all) => all.indexOf(id) === i);
    expect(storesInOrder).toEqual([acme, nordic].filter((id) => storesInOrder.includes(id)));
    const days = tail.map((row) => row.daysToDecision ?? Infinity);
    expect(days).toEqual([...days].sort((a, b) => a - b));
    expect(Object.values(list.counts).reduce((a, b) => a + b, 0)).toBe(list.rows.length);
    expect(list.counts.keep_running).toBe(tail.length);
    // Each call's words, or the flag that replaces "keep running" and the state of a suspended test.
    for (const row of list.rows)
      expect(row.words).toMatch(new RegExp(`^(${CALL_WORDS[row.call]}|Likely harmful — consider stopping$|Suspended since )`));
    // One store's list is that store's rows, in the same order.
    const one = await core.services.decisions.list({ storeId: nordic });
    expect(one.rows).toEqual(list.rows.filter((row) => row.storeId === nordic));
  });

  it('sorts the test list by the call, the goal lift and its P(win), page by page', async () => {
    for (const key of ['decision', 'goalLift', 'goalPWin'] as const) {
      const page = await core.services.tests.list({
        storeId: acme,
        statuses: [],
        stage: null,
        goal: null,
        device: null,
        tag: null,
        campaignId: null,
        audienceId: null,
        search: '',
        includeRemoved: false,
        hasAlerts: false,
        mine: false,
        sort: { key, dir: 'asc' },
        cursor: null,
        limit: 1000,
      });
      const values = page.rows.map((row) => row[key]).filter((value) => value !== null);
      if (key === 'decision') {
        const order = [
          'ship',
          'keep_control',
          'check_data',
          'no_difference',
          'cannot_conclude',
          'keep_running',
          'paused',
        ];
        const ranks = values.map((call) => order.indexOf(String(call)));
        expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      } else {
        expect(values).toEqual([...values].sort((a, b) => Number(a) - Number(b)));
      }
      // NULLs last.
      const firstNull = page.rows.findIndex((row) => row[key] === null);
      if (firstNull !== -1)
        expect(page.rows.slice(firstNull).every((row) => row[key] === null)).toBe(true);
    }
  });

  it('makes every call again after a global settings change, then says so once', async () => {
    const changed = nextEvent(core, 'decisions.changed', (payload) => payload.storeId === null);
    const view = await core.services.decisions.setSettings({
      storeId: null,
      patch: { minEffect: 0.1, minRuntimeDays: 14 },
      clear: [],
    });
    const settings = { ...DEFAULT_DECISION_SETTINGS, minEffect: 0.1, minRuntimeDays: 14 };
    expect(view.global).toEqual(settings);
    expect(view.stores.map((s) => s.effective)).toEqual([settings, settings]);
    await changed;
    await expectCalls(acme, settings, 'setting');
    await expectCalls(nordic, settings, 'setting');
    // Kept in the user's own file, and the app's other settings are untouched.
    expect((await core.services.decisions.settings({})).global).toEqual(settings);
    const appSettings = await core.services.settings.get({});
    expect(appSettings).toMatchObject({ resultsFreshness: '1h' });
    expect(appSettings).not.toHaveProperty('decisions');
  });

  it("makes a store's calls again after its own override, leaving the other store's alone, and clears it", async () => {
    const global = (await core.services.decisions.settings({})).global;
    const before = new Map((await allTestRows(core, nordic)).map((row) => [row.id, row]));
    const changed = nextEvent(core, 'decisions.changed', (payload) => payload.storeId === acme);
    const view = await core.services.decisions.setSettings({
      storeId: acme,
      patch: { credibility: 0.9, plannedDays: 21 },
      clear: [],
    });
    const own = { ...global, credibility: 0.9, plannedDays: 21 };
    expect(view.stores.find((s) => s.storeId === acme)).toMatchObject({
      overrides: { credibility: 0.9, plannedDays: 21 },
      effective: own,
    });
    await changed;
    await expectCalls(acme, own, 'store');
    expect(new Map((await allTestRows(core, nordic)).map((row) => [row.id, row]))).toEqual(before);

    // Clearing one override keeps the other; clearing both brings the global settings back.
    const partly = nextEvent(core, 'decisions.changed', (payload) => payload.storeId === acme);
    await core.services.decisions.setSettings({ storeId: acme, patch: {}, clear: ['credibility'] });
    await partly;
    await expectCalls(acme, { ...global, plannedDays: 21 }, 'store');
    const cleared = nextEvent(core, 'decisions.changed', (payload) => payload.storeId === acme);
    const after = await core.services.decisions.setSettings({
      storeId: acme,
      patch: {},
      clear: ['plannedDays'],
    });
    expect(after.stores.find((s) => s.storeId === acme)?.overrides).toEqual({});
    await cleared;
    await expectCalls(acme, global, 'setting');
  });

  it('refuses invalid settings, an unknown store and a cleared global setting', async () => {
    const refusals = [
      { storeId: null, patch: { credibility: 0.5 }, clear: [] },
      { storeId: null, patch: { minRuntimeDays: 2.5 }, clear: [] },
      { storeId: null, patch: {}, clear: ['credibility' as const] },
      { storeId: acme, patch: { minEffect: 0.1 }, clear: ['minEffect' as const] },
    ];
    for (const input of refusals) {
      await expect(core.services.decisions.setSettings(input)).rejects.toMatchObject({
        problem: { status: 400 },
      });
    }
    await expect(
      core.services.decisions.setSettings({ storeId: 'nope', patch: {}, clear: [] }),
    ).rejects.toMatchObject({ problem: { status: 404 } });
    await expect(core.services.decisions.list({ storeId: 'nope' })).rejects.toBeInstanceOf(
      ProblemError,
    );
  });
});

describe("a test's own plan", { timeout: 60_000 }, () => {
  it('set once the test has data is a plan change after launch: recorded with its date and the plan before', async () => {
    const global = (await core.services.decisions.settings({})).global;
    const cases = await testsWithResults(core, nordic);
    const running = cases.find(
      ({ test, results }) =>
        test.status === 'active' &&
        test.automaticallyEndAt === null &&
        test.variant !== null &&
        Object.keys(results.daily).length > 3,
    );
    expect(running, 'an active test with days of data').toBeDefined();
    if (!running) return;
    const { test, results } = running;
    const lastDay = Object.keys(results.daily).sort().at(-1);
    const changed = nextEvent(core, 'decisions.changed', (payload) => payload.storeId === nordic);
    const decision = await core.services.decisions.setPlan({
      storeId: nordic,
      testId: test.id,
      plannedDays: 42,
    });
    await changed;
    // Recorded as a change from the day after the data the test had: looks until then keep the old plan.
    const dayAfter = new Date(Date.parse(`${lastDay ?? ''}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    // The global settings changed earlier today (the tests above) and are recorded too.
    const today = new Date(simulator.now()).toISOString().slice(0, 10);
    const earlier: SettingsChange[] =
      JSON.stringify(global) === JSON.stringify(DEFAULT_DECISION_SETTINGS)
        ? []
        : [{ from: today, settings: DEFAULT_DECISION_SETTINGS, planSource: 'setting', source: 'settings' }];
    const changes: SettingsChange[] = [...earlier, { from: dayAfter, settings: global, planSource: 'setting', source: 'test' }];
    const expected = asStored(
      decideTest({
        test,
        results,
        settings: { ...global, plannedDays: 42 },
        planSource: 'test',
        changes,
      }),
    );
    expect(decision).toEqual(expected);
    expect(decision?.plan).toMatchObject({ plannedDays: 42, source: 'test' });
    expect((await core.services.tests.get({ storeId: nordic, testId: test.id })).decision).toEqual(
      expected,
    );
    // The row in the user's own file: the plan, when it was set, the data it had, the plan before.
    const user = new Database(join(data.path, 'splitbook-user.db'), { readonly: true });
    const row = user
      .prepare(
        'SELECT planned_days, data_through, previous_days, set_at FROM test_plans WHERE store_id = ? AND test_id = ?',
      )
      .get(nordic, test.id);
    user.close();
    expect(row).toEqual({
      planned_days: 42,
      data_through: lastDay,
      previous_days: global.plannedDays,
      set_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });

    // A later change keeps the first change's date and plan: the budget stopped being spent then.
    const again = await core.services.decisions.setPlan({
      storeId: nordic,
      testId: test.id,
      plannedDays: 35,
    });
    expect(again).toEqual(
      asStored(
        decideTest({
          test,
          results,
          settings: { ...global, plannedDays: 35 },
          planSource: 'test',
          changes,
        }),
      ),
    );
    // Cleared before any new day of data, back to the plan it had: no look ever went by the changed
    // plan, so no change is recorded and the store's (here the global) length applies as before.
    const cleared = await core.services.decisions.setPlan({
      storeId: nordic,
      testId: test.id,
      plannedDays: null,
    });
    expect(cleared).toEqual(
      asStored(decideTest({ test, results, settings: global, planSource: 'setting', changes: earlier })),
    );
    expect(cleared?.plan?.changes).toHaveLength(earlier.length);
  });

  it('set before the test has results is no change: its calls start from that plan', async () => {
    const rows = await allTestRows(core, acme);
    const draft = rows.find((row) => row.decision === null);
    expect(draft).toBeDefined();
    if (!draft) return;
    expect(
      await core.services.decisions.setPlan({ storeId: acme, testId: draft.id, plannedDays: 14 }),
    ).toBeNull();
    const user = new Database(join(data.path, 'splitbook-user.db'), { readonly: true });
    const row = user
      .prepare(
        'SELECT planned_days, data_through, previous_days FROM test_plans WHERE store_id = ? AND test_id = ?',
      )
      .get(acme, draft.id);
    user.close();
    expect(row).toEqual({ planned_days: 14, data_through: null, previous_days: null });
    await expect(
      core.services.decisions.setPlan({ storeId: acme, testId: 'no-such-test', plannedDays: 14 }),
    ).rejects.toMatchObject({ problem: { status: 404 } });
    await expect(
      core.services.decisions.setPlan({ storeId: acme, testId: draft.id, plannedDays: 3 }),
    ).rejects.toMatchObject({ problem: { status: 400 } });
  });
});

describe('the planner', { timeout: 60_000 }, () => {
  it("plans a draft from the store's recent traffic and the goal's baseline there", async () => {
    const estimate = await core.services.decisions.planner({
      storeId: acme,
      goal: 'conversion-rate',
      minEffect: null,
    });
    expect(estimate).not.toBeNull();
    expect(estimate?.metric).toBe('cvr');
    expect(estimate?.dailyVisitors).toBeGreaterThan(0);
    expect(estimate?.baseline).toBeGreaterThan(0);
    expect(estimate?.baseline).toBeLessThan(1);
    expect(estimate?.days).toBeGreaterThan(0);
    // A larger effect to detect needs fewer days; any spelling of the goal.
    const larger = await core.services.decisions.planner({
      storeId: acme,
      goal: 'conversionRate',
      minEffect: 0.2,
    });
    expect(larger?.days ?? Infinity).toBeLessThan(estimate?.days ?? 0);
    expect(larger?.minEffect).toBe(0.2);
    const revenue = await core.services.decisions.planner({
      storeId: acme,
      goal: 'rpv',
      minEffect: null,
    });
    expect(revenue?.metric).toBe('rpv');
    expect(revenue?.baseline).toBeGreaterThan(1);
    // Nothing to go by: a goal Splitbook does not know.
    expect(
      await core.services.decisions.planner({ storeId: acme, goal: 'happiness', minEffect: null }),
    ).toBeNull();
  });
});
