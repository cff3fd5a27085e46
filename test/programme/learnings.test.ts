// Learnings of two stores synced from the simulator: the figures equal the domain's learnings() on the
// calls the cache keeps (each test's detail), per store and across stores, over a period; a shipped
// winner's lift is shrunk toward its store's concluded tests and valued at the planner's traffic and
// revenue per visitor; takeaways are the user's own, one line, and survive a rebuilt cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  learnings,
  programmePrior,
  shrink,
  yearlyImpact,
  type ConcludedTest,
} from '#shared/domain/programme/index';
import { metricOfGoal } from '#shared/domain/metrics';
import { LearningsInput, type Learnings } from '#shared/contract/index';
import { ProblemError } from '#shared/problem';
import { nextSyncReport } from '../support/core';
import {
  asDomain,
  concludedFromDetail,
  detailedTests,
  lookLift,
  syncedProgramme,
  type Detailed,
  type SyncedProgramme,
} from './support';

let programme: SyncedProgramme;
let details: Detailed[] = [];
let concluded: ConcludedTest[] = [];

const learn = (
  input: { storeId?: string | null; since?: string | null; until?: string | null } = {},
): Promise<Learnings> =>
  programme.core.services.programme.learnings({
    storeId: null,
    since: null,
    until: null,
    ...input,
  });

beforeAll(async () => {
  programme = await syncedProgramme('splitbook-learnings-');
  details = await detailedTests(programme.core, Object.values(programme.ids));
  concluded = details.flatMap((d) => concludedFromDetail(d) ?? []);
}, 120_000);

afterAll(async () => programme?.close());

describe('learnings', { timeout: 60_000 }, () => {
  it('are the domain’s figures on the cache’s calls, across stores and per store', async () => {
    const result = await learn();
    expect(concluded.length).toBeGreaterThan(8);
    expect(result.figures).toEqual(learnings(concluded));
    expect(result.figures.concluded).toBe(concluded.length);
    for (const store of result.stores) {
      expect(store.figures, store.storeName).toEqual(
        learnings(concluded.filter((c) => c.storeId === store.storeId)),
      );
    }
    expect(result.stores.map((s) => s.storeName)).toEqual(['Acme', 'Nordic']);
    // Every concluded test, and only those, listed latest call first.
    expect(result.tests.map((t) => t.testId).sort()).toEqual(concluded.map((c) => c.testId).sort());
    expect(result.tests.map(asDomain).sort((a, b) => a.testId.localeCompare(b.testId))).toEqual(
      [...concluded].sort((a, b) => a.testId.localeCompare(b.testId)),
    );
    const days = result.tests.map((t) => t.decidedOn ?? '');
    expect(days).toEqual([...days].sort().reverse());
    expect(result.definition).toMatch(
      /Ship the variant.*Keep the control.*No meaningful difference/,
    );
  });

  it('keep to a period on the day of the call’s data, both ends included', async () => {
    const dates = concluded.map((c) => c.decidedOn ?? '').sort();
    const since = dates[Math.floor(dates.length / 3)] ?? '';
    const until = dates[Math.floor((dates.length * 2) / 3)] ?? '';
    const inPeriod = concluded.filter(
      (c) => (c.decidedOn ?? '') >= since && (c.decidedOn ?? '') <= until,
    );
    const result = await learn({ since, until });
    expect(result.figures).toEqual(learnings(inPeriod));
    expect(result.tests).toHaveLength(inPeriod.length);
    expect(result).toMatchObject({ since, until });
    const acme = programme.ids['Acme'] ?? '';
    const one = await learn({ storeId: acme, since });
    expect(one.stores).toHaveLength(1);
    expect(one.figures).toEqual(
      learnings(concluded.filter((c) => c.storeId === acme && (c.decidedOn ?? '') >= since)),
    );
  });

  it('value each shipped winner: its lift shrunk toward its store’s concluded tests, × the traffic × revenue per visitor', async () => {
    const result = await learn();
    const winners = concluded.filter((c) => c.call === 'ship');
    expect(result.impact.map((r) => r.testId).sort()).toEqual(winners.map((w) => w.testId).sort());
    for (const storeId of Object.values(programme.ids)) {
      const ofStore = details.filter(
        (d) => d.storeId === storeId && concludedFromDetail(d) !== null,
      );
      const prior = programmePrior(
        ofStore.flatMap((d) => (d.decision === null ? [] : (lookLift(d.decision) ?? []))),
      );
      const view = result.priors.find((p) => p.storeId === storeId);
      expect(view?.tests).toBe(prior?.tests);
      expect(view?.meanLift).toBeCloseTo(Math.expm1(prior?.mean ?? Number.NaN), 12);
      const rpv = await programme.core.services.decisions.planner({
        storeId,
        goal: 'revenue per visitor',
        minEffect: null,
      });
      for (const d of ofStore.filter((o) => o.decision?.call === 'ship')) {
        const row = result.impact.find((r) => r.testId === d.test.id);
        const measured = d.decision === null ? null : lookLift(d.decision);
        if (!row || !measured || !rpv) throw new Error(`no impact row for ${d.test.title}`);
        const lift = shrink(measured, prior);
        const expected = yearlyImpact({
          lift,
          dailyVisitors: rpv.dailyVisitors,
          revenuePerVisitor: rpv.baseline,
          goalIsRevenue: metricOfGoal(d.test.goal)?.rate === 'rpv',
          shrunkFrom: prior?.tests ?? null,
        });
        expect(row.rawLift).toBeCloseTo(d.decision?.look?.lift ?? Number.NaN, 12);
        expect(row.shrunkLift).toBeCloseTo(lift.shrunk, 12);
        expect([row.low, row.high, row.weight]).toEqual(
          [lift.low, lift.high, lift.weight].map((v) => expect.closeTo(v, 12)),
        );
        expect(row.yearly?.value).toBeCloseTo(expected.value, 6);
        expect(row.yearly?.low).toBeCloseTo(expected.low, 6);
        expect(row.yearly?.high).toBeCloseTo(expected.high, 6);
        expect(row.assumptions).toBe(expected.assumptions);
        expect(row.assumptions).toMatch(/an estimate, not a measurement$/);
        expect(row.implemented).toBe(d.test.implemented);
        // Luck discounted: the shrunk lift lies between the store's mean and the lift as measured.
        const mean = Math.expm1(prior?.mean ?? 0);
        expect(row.shrunkLift).toBeGreaterThanOrEqual(Math.min(mean, row.rawLift) - 1e-12);
        expect(row.shrunkLift).toBeLessThanOrEqual(Math.max(mean, row.rawLift) + 1e-12);
      }
    }
    const values = result.impact.map((r) => r.yearly?.value ?? Number.NEGATIVE_INFINITY);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    expect(result.impactNote).toMatch(/estimate/);
  });

  it('refuse a store that does not exist, and a period that ends before it starts', async () => {
    await expect(learn({ storeId: 'no-such-store' })).rejects.toBeInstanceOf(ProblemError);
    // The bridge parses every input with the contract's schema before the service sees it.
    expect(LearningsInput.safeParse({ since: '2026-05-01', until: '2026-04-30' }).success).toBe(
      false,
    );
    expect(LearningsInput.safeParse({ since: '2026-02-30' }).success).toBe(false);
    expect(LearningsInput.parse({})).toEqual({ storeId: null, since: null, until: null });
  });
});

describe('takeaways', { timeout: 90_000 }, () => {
  it('are one line of at most 200 characters, trimmed; an empty one clears it', async () => {
    const target = (await learn()).tests[0];
    if (!target) throw new Error('nothing concluded');
    const { storeId, testId } = target;
    const set = (text: string) =>
      programme.core.services.programme.setTakeaway({ storeId, testId, text });
    const saved = await set('  Urgency works on mobile, not on desktop  ');
    expect(saved.text).toBe('Urgency works on mobile, not on desktop');
    expect(saved.updatedAt).not.toBeNull();
    expect((await learn()).tests.find((t) => t.testId === testId)).toMatchObject({
      takeaway: 'Urgency works on mobile, not on desktop',
      takeawayUpdatedAt: saved.updatedAt,
    });
    for (const bad of ['two\nlines', 'x'.repeat(201)]) {
      await expect(set(bad)).rejects.toMatchObject({ problem: { status: 400 } });
    }
    await expect(
      programme.core.services.programme.setTakeaway({
        storeId,
        testId: '00000000-0000-4000-8000-00000000dead',
        text: 'x',
      }),
    ).rejects.toMatchObject({ problem: { status: 404 } });
    expect(await set('')).toEqual({ text: '', updatedAt: null });
    expect((await learn()).tests.find((t) => t.testId === testId)?.takeaway).toBe('');
  });

  it('live in the user’s own file: a rebuilt cache, synced again, finds them', async () => {
    const target = (await learn()).tests[1];
    if (!target) throw new Error('nothing concluded');
    await programme.core.services.programme.setTakeaway({
      storeId: target.storeId,
      testId: target.testId,
      text: 'Free shipping beats discounts here',
    });
    const synced = Object.values(programme.ids).map((id) => nextSyncReport(programme.core, id));
    await programme.core.services.app.rebuildCache({});
    for (const report of await Promise.all(synced)) expect(report.outcome).toBe('ok');
    const after = await learn();
    expect(after.tests.find((t) => t.testId === target.testId)?.takeaway).toBe(
      'Free shipping beats discounts here',
    );
    expect(after.tests.filter((t) => t.takeaway !== '')).toHaveLength(1);
  });
});
