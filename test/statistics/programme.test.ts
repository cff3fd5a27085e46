// The programme's arithmetic: the backlog's score and ranking, learnings on a fixture programme, and
// shrinkage against a worked example.
import { describe, expect, it } from 'vitest';
import {
  backlogScore,
  learnings,
  programmePrior,
  rankBacklog,
  shrink,
  yearlyImpact,
  type ConcludedTest,
} from '#shared/domain/programme/index';

describe('the backlog', () => {
  const idea = (
    title: string,
    impact: number | null,
    effort: number | null,
    priority: string | null = null,
  ) => ({ title, impact, effort, priority });

  it('scores impact ÷ effort by default, and says nothing when an input is missing', () => {
    expect(backlogScore(idea('a', 8, 2), 'impact-per-effort')).toBe(4);
    expect(backlogScore(idea('a', 8, 0), 'impact-per-effort')).toBeNull();
    expect(backlogScore(idea('a', null, 2), 'impact-per-effort')).toBeNull();
    expect(backlogScore(idea('a', 8, 2), 'impact-minus-effort')).toBe(6);
    expect(backlogScore(idea('a', 8, null), 'impact')).toBe(8);
  });

  it('ranks the highest score first, ties by priority (known words before unknown), unscored last', () => {
    const ranked = rankBacklog(
      [
        idea('Zeta', 6, 3, 'low'),
        idea('Alpha', 6, 3, 'HIGH'),
        idea('Beta', 9, 1),
        idea('Gamma', null, 1, 'high'),
        idea('Delta', 6, 3, 'urgent-ish'),
      ],
      'impact-per-effort',
    );
    expect(ranked.map((r) => r.title)).toEqual(['Beta', 'Alpha', 'Zeta', 'Delta', 'Gamma']);
    expect(ranked[0]?.score).toBe(9);
  });
});

describe('learnings', () => {
  const t = (
    call: ConcludedTest['call'],
    lift: number | null,
    extra: Partial<ConcludedTest> = {},
  ): ConcludedTest => ({
    storeId: 's',
    testId: `${call}-${lift}-${extra.title ?? ''}`,
    title: extra.title ?? 'x',
    call,
    lift,
    days: 20,
    decidedOn: '2026-10-10',
    tags: [],
    surfaceArea: null,
    goal: 'conversion-rate',
    ...extra,
  });

  it('counts concluded tests by call, the win rate and the medians, ignoring tests still running', () => {
    const programme = [
      t('ship', 0.12, { tags: ['Checkout'], days: 14, decidedOn: '2026-09-03' }),
      t('ship', 0.06, { tags: ['Checkout', 'UX'], days: 28 }),
      t('keep_control', -0.08, { tags: ['UX'] }),
      t('no_difference', 0.01, { surfaceArea: 'pdp', days: 30 }),
      t('keep_running', 0.2),
      t('check_data', 0.5),
    ];
    const l = learnings(programme);
    expect(l).toMatchObject({
      concluded: 4,
      ship: 2,
      keepControl: 1,
      noDifference: 1,
      winRate: 0.5,
      noDifferenceRate: 0.25,
    });
    expect(l.medianWinnerLift).toBeCloseTo(0.09, 12);
    expect(l.medianLoserLift).toBeCloseTo(-0.08, 12);
    expect(l.medianDaysToDecision).toBe(24);
    expect(l.byTag.find((b) => b.key === 'Checkout')).toMatchObject({
      concluded: 2,
      wins: 2,
      winRate: 1,
    });
    expect(l.byTag.find((b) => b.key === 'UX')).toMatchObject({
      concluded: 2,
      wins: 1,
      losses: 1,
      winRate: 0.5,
    });
    expect(l.bySurfaceArea.find((b) => b.key === 'pdp')).toMatchObject({ flat: 1 });
    expect(l.perMonth).toEqual([
      { month: '2026-09', ship: 1, keepControl: 0, noDifference: 0 },
      { month: '2026-10', ship: 1, keepControl: 1, noDifference: 1 },
    ]);
    expect(l.liftHistogram.reduce((s, b) => s + b.count, 0)).toBe(4);
    expect(l.liftHistogram.find((b) => b.from === 0.1)?.count).toBe(1);
  });

  it('has no rates when nothing concluded', () => {
    expect(learnings([t('keep_running', 0.1)])).toMatchObject({
      concluded: 0,
      winRate: null,
      medianWinnerLift: null,
    });
  });
});

describe('shrinkage toward the programme mean (empirical Bayes)', () => {
  // One huge winner (+40%) among many tests within ±6%: the prior's mean is near zero.
  const flat = Array.from({ length: 12 }, (_, i) => ({
    theta: Math.log1p(((i % 5) - 2) * 0.03),
    se: 0.02,
  }));

  it('puts a winner between its raw lift and the mean, closer to the mean when the test is small', () => {
    const small = { theta: Math.log1p(0.4), se: 0.2 };
    const large = { theta: Math.log1p(0.4), se: 0.05 };
    const prior = programmePrior([...flat, small]);
    expect(prior).not.toBeNull();
    const mean = Math.expm1(prior?.mean ?? 0);
    const a = shrink(small, prior);
    const b = shrink(large, programmePrior([...flat, large]));
    for (const s of [a, b]) {
      expect(s.shrunk).toBeLessThan(s.raw);
      expect(s.shrunk).toBeGreaterThan(mean);
      expect(s.low).toBeLessThan(s.shrunk);
      expect(s.high).toBeGreaterThan(s.shrunk);
    }
    // The small test keeps less of its own lift than the large one.
    expect(a.weight).toBeLessThan(b.weight);
    expect(a.shrunk).toBeLessThan(b.shrunk);
  });

  it('claims no shrinkage from fewer than three tests', () => {
    expect(programmePrior(flat.slice(0, 2))).toBeNull();
    expect(shrink({ theta: Math.log1p(0.4), se: 0.2 }, null)).toMatchObject({ weight: 1 });
    expect(shrink({ theta: Math.log1p(0.4), se: 0.2 }, null).shrunk).toBeCloseTo(0.4, 12);
  });

  it('a yearly value: shrunk lift × traffic × revenue per visitor, with every assumption in one line', () => {
    const lift = { raw: 0.2, shrunk: 0.1, low: 0.02, high: 0.18, weight: 0.5 };
    const value = yearlyImpact({
      lift,
      dailyVisitors: 1000,
      revenuePerVisitor: 2,
      goalIsRevenue: false,
      shrunkFrom: 13,
    });
    expect(value.value).toBeCloseTo(0.1 * 1000 * 365 * 2, 6);
    expect(value.low).toBeCloseTo(0.02 * 730_000, 6);
    expect(value.assumptions).toMatch(
      /shrunk toward the mean of 13 concluded tests; 1,000 visitors a day for a year; revenue per visitor 2\.00.*an assumption.*an estimate, not a measurement/,
    );
  });
});
