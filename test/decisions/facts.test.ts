// The facts kept beside each result (cache migration 15): a settings change makes every call again from
// them, and each call equals, figure for figure, the one made from the test and its results, on random
// simulated tests (revenue goals, unknown goals, no variant, SRM, daily figures that do not add up,
// ended tests, plans and plan changes); facts whose test, results or version changed are never used.
import { existsSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createSimulator } from '#simulator/index';
import type { Test, TestResults } from '#shared/api/index';
import {
  decideTest,
  decisionFacts,
  decideFrom,
  DEFAULT_DECISION_SETTINGS,
  type DecisionSettings,
} from '#shared/domain/decisions/index';
import {
  decisionInput,
  lastDataDate,
  readGlobalDecisionSettings,
  storeBasis,
} from '#core/decisions/basis';
import {
  readTestPlan,
  writeGlobalDecisionSettings,
  writeStoreOverrides,
  writeTestPlan,
} from '#core/db/user/decisions';
import { callJobs, readStaleCalls, writeStaleCalls } from '#core/decisions/stale';
import { insertStore } from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import { FACTS_VERSION, packDays, unpackDays } from '#core/decisions/facts';
import { makeCall } from '#core/decisions/calls';
import {
  IN_PLACE_SLICE_MS,
  inPlaceCallMaker,
  sourceCallThread,
  threadCallMaker,
} from '#core/decisions/call-threads';
import { tempDir } from '../db/fixtures';
import { asStored, makeCallsInPlace } from './support';

const STORE = 's1';
const AT = '2026-03-01T12:00:00.000Z';
const GOALS = [
  'conversion-rate',
  'revenue-per-visitor',
  'average-order-value',
  'add-to-cart-rate',
  'click-through-rate',
  'not-a-goal',
];

type Case = { test: Test; results: TestResults; plan: 'none' | 'own' | 'changed' };

/** Simulated tests with results, each bent one way (chosen by a fixed hash of its position). */
function cases(seed: number, count: number): Case[] {
  const sim = createSimulator({
    seed,
    now: () => Date.parse(AT),
    stores: [{ name: 'Shop' }],
    testsPerStore: count,
  });
  const out: Case[] = [];
  for (const [n, test] of sim.snapshot('Shop').tests.entries()) {
    const results = sim.results('Shop', test.id);
    if (!results) continue;
    const r = Math.imul(n + 1, 2654435761) >>> 0;
    let bent: Case = {
      test,
      results,
      plan: (['none', 'own', 'changed'] as const)[(r >>> 12) % 3] ?? 'none',
    };
    switch ((r >>> 4) % 8) {
      case 1:
        bent = {
          ...bent,
          test: { ...test, goal: GOALS[(r >>> 8) % GOALS.length] ?? 'conversion-rate' },
        };
        break;
      case 2:
        bent = { ...bent, test: { ...test, status: 'ended' } };
        break;
      case 3: // a sample-ratio mismatch
        bent = {
          ...bent,
          results: {
            ...results,
            variant: { ...results.variant, visitors: Math.round(results.variant.visitors * 1.3) },
          },
        };
        break;
      case 4: {
        // daily figures that no longer add up to the totals
        const daily = { ...results.daily };
        delete daily[Object.keys(daily)[1] ?? ''];
        bent = { ...bent, results: { ...results, daily } };
        break;
      }
      case 5:
        bent = {
          ...bent,
          test: {
            ...test,
            goal: r % 2 === 0 ? 'revenue-per-visitor' : 'average-order-value',
            status: r % 3 === 0 ? 'ended' : test.status,
          },
        };
        break;
      case 6:
        bent = { ...bent, test: { ...test, variant: null } };
        break;
    }
    out.push(bent);
  }
  return out;
}

function openCache(): Db {
  const dir = tempDir();
  const db = openDatabase(join(dir, 'cache.db'), { userDataFile: join(dir, 'user.db') });
  insertStore(db, {
    id: STORE,
    name: 'Shop',
    baseUrl: 'https://shop.example.com',
    kind: 'api',
    keyStorage: 'none',
    createdAt: AT,
  });
  return db;
}

/** Writes the tests and their results as a sync does, and each test's plan. */
function write(db: Db, all: readonly Case[]): void {
  upsertTests(db, { storeId: STORE, tests: all.map((c) => c.test), runId: 'r1', syncedAt: AT });
  for (const c of all) {
    upsertResults(db, {
      storeId: STORE,
      testId: c.test.id,
      results: c.results,
      fetchedAt: AT,
      testUpdatedAt: c.test.updatedAt,
      testStatus: c.test.status,
    });
    const through = lastDataDate(c.results);
    if (c.plan === 'own') {
      writeTestPlan(db, STORE, c.test.id, {
        plannedDays: 21,
        setAt: AT,
        dataThrough: null,
        previousDays: null,
      });
    } else if (c.plan === 'changed' && through !== null) {
      const middle = Object.keys(c.results.daily).sort()[
        Math.floor(Object.keys(c.results.daily).length / 2)
      ];
      writeTestPlan(db, STORE, c.test.id, {
        plannedDays: 35,
        setAt: AT,
        dataThrough: middle ?? through,
        previousDays: 21,
      });
    }
  }
}

/** Every stale call of the store made again, a batch at a time as the refresh does; returns how many. */
function refresh(db: Db): number {
  let decided = 0;
  let afterSeq: number | null = 0;
  while (afterSeq !== null) {
    const batch = readStaleCalls(db, { storeId: STORE, afterSeq, limit: 50 });
    decided += writeStaleCalls(db, batch, makeCallsInPlace(batch), AT);
    afterSeq = batch.afterSeq;
  }
  return decided;
}

/** Each test's kept call, by test id. */
function keptCalls(db: Db): Map<string, string | null> {
  const rows = db
    .prepare<[], { id: string; json: string | null }>(
      `SELECT t.id, unpack_json(d.decision_packed) AS json FROM tests t LEFT JOIN tests_decision d ON d.seq = t.seq`,
    )
    .all();
  return new Map(rows.map((row) => [row.id, row.json]));
}

/** The call decideTest makes for each case with the settings and plan in effect now, as kept. */
function expectedCalls(db: Db, all: readonly Case[]): Map<string, string | null> {
  const basis = storeBasis(db, STORE);
  return new Map(
    all.map((c) => {
      const input = decisionInput(basis, readTestPlan(db, STORE, c.test.id));
      const decision = asStored(decideTest({ test: c.test, results: c.results, ...input }));
      return [c.test.id, decision === null ? null : JSON.stringify(decision)];
    }),
  );
}

const factsRows = (db: Db) =>
  db
    .prepare<[string], { n: number }>(`SELECT count(*) AS n FROM results_facts WHERE version = ?`)
    .get(FACTS_VERSION)?.n;

const SETTINGS: Partial<DecisionSettings>[] = [
  { credibility: 0.9 },
  { minRuntimeDays: 3, minConversions: 20, minEffect: 0.02 },
  { credibility: 0.99, plannedDays: 56, longestWaitDays: 30 },
];

describe('decision facts', { timeout: 120_000 }, () => {
  it('pack the days as the text of their columns (cache v22), smaller than float64, and read float64 series too', () => {
    const side = (visitors: number, revenue: number) => ({
      visitors,
      conversions: 3,
      carts: 9,
      clicks: 20,
      orders: 3,
      revenue,
    });
    const days = Array.from({ length: 30 }, (_, i) => ({
      dayNumber: 20_400 + i,
      control: side(100 + i, 250.26 + i),
      variant: side(98 + i, 301.5),
    }));
    const packed = packDays(days);
    const text = brotliDecompressSync(packed).toString('utf8');
    expect(text.startsWith('[[20400,1,1,')).toBe(true); // the day numbers as differences
    expect(unpackDays(packed)).toEqual(days);
    const float64 = new Float64Array(
      days.flatMap((d) => [d.dayNumber, ...Object.values(d.control), ...Object.values(d.variant)]),
    );
    const v20 = brotliCompressSync(new Uint8Array(float64.buffer), {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 },
    });
    expect(unpackDays(v20)).toEqual(days);
    expect(packed.length).toBeLessThan(v20.length);
    expect(unpackDays(packDays([]))).toEqual([]);
  });

  it('pack and unpack the days bit for bit', () => {
    const days = [
      {
        dayNumber: 20_000,
        control: {
          visitors: 1e6,
          conversions: 0.1 + 0.2,
          carts: -0,
          clicks: Number.NaN,
          orders: 3,
          revenue: 1234.5678901234,
        },
        variant: {
          visitors: 7,
          conversions: Infinity,
          carts: 5e-324,
          clicks: 1,
          orders: 0,
          revenue: -1,
        },
      },
    ];
    const back = unpackDays(packDays(days));
    expect(back).toEqual(days);
    expect(Object.is(back?.[0]?.control.carts, -0)).toBe(true);
    expect(unpackDays(new Uint8Array(13))).toBeNull();
  });

  it('a call from facts read back equals decideTest on many random tests, whatever the settings', () => {
    const db = openCache();
    try {
      const all = [...cases(3, 120), ...cases(17, 120)];
      write(db, all);
      expect(factsRows(db)).toBe(all.length);
      const global = readGlobalDecisionSettings(db);
      let checked = 0;
      for (const [i, change] of SETTINGS.entries()) {
        writeGlobalDecisionSettings(db, { ...global, ...change }, AT);
        if (i === 2) writeStoreOverrides(db, STORE, { plannedDays: 14 }, AT);
        expect(refresh(db)).toBe(all.length);
        expect(keptCalls(db)).toEqual(expectedCalls(db, all));
        checked += all.length;
      }
      // The full path: without facts, the refresh makes the calls from the results and keeps facts again.
      db.exec(`DELETE FROM results_facts; UPDATE tests SET decision_key = NULL`);
      const fromFacts = keptCalls(db);
      expect(refresh(db)).toBe(all.length);
      expect(keptCalls(db)).toEqual(fromFacts);
      expect(factsRows(db)).toBe(all.length);
      expect(checked).toBeGreaterThan(400);
      // Many kinds of call were among them, tests that can have none too.
      const calls = new Set(
        [...fromFacts.values()].map((json) =>
          json === null ? 'none' : (JSON.parse(json) as { call: string }).call,
        ),
      );
      for (const call of ['none', 'check_data', 'cannot_conclude', 'ship'])
        expect(calls).toContain(call);
      expect(calls.size).toBeGreaterThanOrEqual(5);
    } finally {
      db.close();
    }
  });

  it('decideFrom on decisionFacts is decideTest', () => {
    for (const c of cases(29, 80)) {
      const input = {
        settings: DEFAULT_DECISION_SETTINGS,
        planSource: 'setting' as const,
        planChange: null,
      };
      const data = decisionFacts(c.test, c.results);
      const fromFacts = data === null ? null : decideFrom(data, input);
      expect(fromFacts).toEqual(decideTest({ test: c.test, results: c.results, ...input }));
    }
  });

  it("facts made from another version of the test's record, of its results or of the rules are not used", () => {
    const db = openCache();
    try {
      const all = cases(41, 60).filter(
        (c) => c.test.variant !== null && c.test.status === 'active',
      );
      expect(all.length).toBeGreaterThan(5);
      write(db, all);
      // The test ends (its record changes, its results do not): its facts no longer match.
      const [ended, rewritten, older] = all;
      if (!ended || !rewritten || !older) throw new Error('too few cases');
      const endedTest: Test = { ...ended.test, status: 'ended' };
      upsertTests(db, { storeId: STORE, tests: [endedTest], runId: 'r2', syncedAt: AT });
      // New results for another: its facts went with the old ones, and come back with the new.
      const newResults: TestResults = {
        ...rewritten.results,
        variant: {
          ...rewritten.results.variant,
          visitors: Math.round(rewritten.results.variant.visitors * 1.5),
        },
      };
      upsertResults(db, {
        storeId: STORE,
        testId: rewritten.test.id,
        results: newResults,
        fetchedAt: AT,
        testUpdatedAt: rewritten.test.updatedAt,
        testStatus: rewritten.test.status,
      });
      // A third's facts kept by another version, and wrong: they must not be read.
      db.prepare(
        `UPDATE results_facts SET version = '0.0', facts = json_set(facts, '$.status', 'ended') WHERE test_id = ?`,
      ).run(older.test.id);
      const now = all.map((c) =>
        c === ended
          ? { ...c, test: endedTest }
          : c === rewritten
            ? { ...c, results: newResults }
            : c,
      );
      writeGlobalDecisionSettings(db, { ...readGlobalDecisionSettings(db), credibility: 0.9 }, AT);
      expect(refresh(db)).toBe(all.length);
      expect(keptCalls(db)).toEqual(expectedCalls(db, now));
      expect(factsRows(db)).toBe(all.length);
    } finally {
      db.close();
    }
  });
});

/** Every stale call of the store, read as one batch (for the tests of the calls' making). */
function wholeBatch(db: Db) {
  return readStaleCalls(db, { storeId: STORE, afterSeq: 0, limit: 100_000 });
}

describe("a refresh's calls made elsewhere", { timeout: 120_000 }, () => {
  it('in place, a slice of time at a time: the event loop turns while a long batch is made, and the calls are the same', async () => {
    const db = openCache();
    try {
      write(db, cases(5, 120));
      writeGlobalDecisionSettings(db, { ...readGlobalDecisionSettings(db), credibility: 0.9 }, AT);
      const batch = wholeBatch(db);
      // The batch three times over: well over a slice of the engine's work on any machine.
      const jobs = [...callJobs(batch), ...callJobs(batch), ...callJobs(batch)];
      let turns = 0;
      let on = true;
      const chase = (): void => {
        turns += 1;
        if (on) setImmediate(chase);
      };
      setImmediate(chase);
      const started = performance.now();
      const made = await inPlaceCallMaker().make(jobs);
      const took = performance.now() - started;
      on = false;
      expect(made).toEqual(jobs.map(makeCall));
      expect(took).toBeGreaterThan(2 * IN_PLACE_SLICE_MS);
      // Made at once, the batch would hold the thread throughout: not one turn while it is made.
      expect(turns).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('on the calls threads (real worker threads, the source under tsx) are those made in place', async () => {
    const db = openCache();
    const threads = threadCallMaker(sourceCallThread(), 2);
    try {
      const all = cases(5, 120);
      write(db, all);
      writeGlobalDecisionSettings(db, { ...readGlobalDecisionSettings(db), credibility: 0.9 }, AT);
      const batch = wholeBatch(db);
      const jobs = callJobs(batch);
      expect(jobs.length).toBeGreaterThan(60);
      // Split as the refresh sends them, several batches in hand across both threads.
      const halves = [jobs.slice(0, 40), jobs.slice(40)];
      const made = (await Promise.all(halves.map((half) => threads.make(half)))).flat();
      expect(made).toEqual(makeCallsInPlace(batch));
      expect(made.every((answer) => answer.kind === 'made')).toBe(true);
      expect(threads.threads()).toBe(2);
    } finally {
      await threads.close();
      db.close();
    }
  });

  it('on the built file the Electron app ships (out/main/call-worker.js) under plain Node are those made in place', async () => {
    const built = join(process.cwd(), 'out', 'main', 'call-worker.js');
    expect(existsSync(built), 'run `npx electron-vite build` first (npm test does)').toBe(true);
    const db = openCache();
    const thread = threadCallMaker({ file: built }, 1);
    const logged = vi.spyOn(console, 'error');
    try {
      write(db, cases(13, 40));
      writeGlobalDecisionSettings(db, { ...readGlobalDecisionSettings(db), credibility: 0.9 }, AT);
      const batch = wholeBatch(db);
      expect(await thread.make(callJobs(batch))).toEqual(makeCallsInPlace(batch));
      // Made on the thread: none fell back in place.
      expect(thread.threads()).toBe(1);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
      await thread.close();
      db.close();
    }
  });

  it('on threads that end when idle, and start again at the next batch', async () => {
    const db = openCache();
    const threads = threadCallMaker(sourceCallThread(), 1, 100);
    try {
      write(db, cases(29, 30));
      writeGlobalDecisionSettings(db, { ...readGlobalDecisionSettings(db), credibility: 0.9 }, AT);
      const batch = wholeBatch(db);
      const inPlace = makeCallsInPlace(batch);
      expect(threads.running()).toBe(0);
      expect(await threads.make(callJobs(batch))).toEqual(inPlace);
      expect(threads.running()).toBe(1);
      await vi.waitFor(() => expect(threads.running()).toBe(0), { timeout: 5_000 });
      expect(await threads.make(callJobs(batch))).toEqual(inPlace);
      expect(threads.running()).toBe(1);
    } finally {
      await threads.close();
      db.close();
    }
  });

  it('by a calls thread that cannot start, or that dies with a batch in hand, are made in place', async () => {
    const db = openCache();
    const dir = tempDir();
    // A real worker thread whose code exits at the first batch it is sent.
    const dying = join(dir, 'dying-worker.mjs');
    writeFileSync(
      dying,
      "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\n",
    );
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const makers = [
      threadCallMaker({ file: join(dir, 'no-such-worker.mjs') }, 1),
      threadCallMaker({ file: dying }, 1),
    ];
    try {
      write(db, cases(9, 40));
      writeGlobalDecisionSettings(db, { ...readGlobalDecisionSettings(db), credibility: 0.9 }, AT);
      const batch = wholeBatch(db);
      const inPlace = makeCallsInPlace(batch);
      for (const maker of makers) {
        expect(await maker.make(callJobs(batch))).toEqual(inPlace);
        // From then on every call is made in place, at once.
        expect(maker.threads()).toBe(0);
        expect(await maker.make(callJobs(batch))).toEqual(inPlace);
      }
      expect(logged.mock.calls.map((call) => call[0])).toEqual([
        '[splitbook] a calls thread stopped; making calls in place:',
        '[splitbook] a calls thread stopped; making calls in place:',
      ]);
    } finally {
      logged.mockRestore();
      for (const maker of makers) await maker.close();
      db.close();
    }
  });

  it('from kept facts that no longer parse (version and hash still match) are made from the results, and the facts kept again', () => {
    const db = openCache();
    try {
      const all = cases(31, 40).filter((c) => c.test.variant !== null);
      write(db, all);
      const [damaged] = all;
      if (!damaged) throw new Error('too few cases');
      // The record's facts damaged in place: they pass factsHold, and only the calls thread finds out.
      db.prepare(`UPDATE results_facts SET facts = '{"goal":' WHERE test_id = ?`).run(
        damaged.test.id,
      );
      writeGlobalDecisionSettings(db, { ...readGlobalDecisionSettings(db), credibility: 0.9 }, AT);
      const batch = wholeBatch(db);
      const made = makeCallsInPlace(batch);
      expect(made.filter((answer) => answer.kind === 'unreadable')).toHaveLength(1);
      expect(writeStaleCalls(db, batch, made, AT)).toBe(all.length);
      expect(keptCalls(db)).toEqual(expectedCalls(db, all));
      const facts = db
        .prepare<[string], { facts: string }>(`SELECT facts FROM results_facts WHERE test_id = ?`)
        .get(damaged.test.id)?.facts;
      expect(() => JSON.parse(facts ?? '')).not.toThrow();
    } finally {
      db.close();
    }
  });

  it('are written only while their rows still need them: a call made meanwhile from newer results stays', () => {
    const db = openCache();
    try {
      const all = cases(23, 60).filter(
        (c) => c.test.variant !== null && c.test.status === 'active',
      );
      write(db, all);
      const [synced, resynced] = all;
      if (!synced || !resynced) throw new Error('too few cases');
      const settings = readGlobalDecisionSettings(db);
      writeGlobalDecisionSettings(db, { ...settings, credibility: 0.9 }, AT);
      // The refresh reads its batch and makes the calls (on a thread, while a sync runs on)...
      const batch = wholeBatch(db);
      const made = makeCallsInPlace(batch);
      const more = (results: TestResults): TestResults => ({
        ...results,
        variant: { ...results.variant, visitors: Math.round(results.variant.visitors * 1.5) },
      });
      const resultsWrite = (c: Case, results: TestResults) =>
        upsertResults(db, {
          storeId: STORE,
          testId: c.test.id,
          results,
          fetchedAt: AT,
          testUpdatedAt: c.test.updatedAt,
          testStatus: c.test.status,
        });
      // ...a sync writes one test's newer results, and their call under these settings...
      resultsWrite(synced, more(synced.results));
      // ...and another's after the settings moved again (its call made under the newer ones).
      writeGlobalDecisionSettings(db, { ...settings, credibility: 0.99 }, AT);
      resultsWrite(resynced, more(resynced.results));
      const syncedCalls = keptCalls(db);
      expect(writeStaleCalls(db, batch, made, AT)).toBe(all.length - 2);
      const kept = keptCalls(db);
      // The sync's calls stay: neither is replaced by one made from the results it replaced.
      expect(kept.get(synced.test.id)).toBe(syncedCalls.get(synced.test.id));
      expect(kept.get(resynced.test.id)).toBe(syncedCalls.get(resynced.test.id));
      expect(JSON.parse(kept.get(resynced.test.id) ?? 'null')).toMatchObject({
        settings: { credibility: 0.99 },
      });
      // The next refresh makes every call under the settings now, from the results now.
      expect(refresh(db)).toBe(all.length - 1);
      const now = all.map((c) =>
        c === synced || c === resynced ? { ...c, results: more(c.results) } : c,
      );
      expect(keptCalls(db)).toEqual(expectedCalls(db, now));
    } finally {
      db.close();
    }
  });
});
