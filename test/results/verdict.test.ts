// Results that say only what the data says (issue 12, items 1–4): verdicts in words and sign, goals
// matched whatever their spelling, disagreements surfaced, rates' scale judged, run length from dates.
import { describe, expect, it } from 'vitest';
import { isGoalId, metricOfGoal, rateScale } from '#shared/domain/metrics';
import {
  daysRunning,
  daysWithData,
  disagreements,
  knownTierLabel,
  liftTone,
  verdictOf,
} from '#shared/domain/verdict';
import { foreignResults, foreignTest } from './foreign';

describe('a verdict says who wins', () => {
  it('names the winning side, with a sign, only when the tier is significant', () => {
    expect(verdictOf({ tier: 'significant', leadingVariant: 'variant' })).toMatchObject({
      winner: 'variant',
      words: 'Variant better',
      sign: '+',
    });
    expect(verdictOf({ tier: 'significant', leadingVariant: 'control' })).toMatchObject({
      winner: 'control',
      words: 'Control better',
      sign: '−',
    });
    expect(verdictOf({ tier: 'emerging', leadingVariant: 'variant' }).words).toBe(
      'No difference yet',
    );
  });

  it('never colours a losing variant green because the result is significant (item 2)', () => {
    const controlWins = verdictOf({ tier: 'significant', leadingVariant: 'control' });
    expect(liftTone(-29, controlWins)).toBe('negative');
    // A lift that contradicts the winner is not given the winner's colour.
    expect(liftTone(12, controlWins)).toBe('inconclusive');
    expect(liftTone(12, verdictOf({ tier: 'significant', leadingVariant: 'variant' }))).toBe(
      'positive',
    );
  });

  it('does not guess at values it does not know (item 3)', () => {
    expect(verdictOf({ tier: 'trending', leadingVariant: 'variant' }).winner).toBe('unknown');
    expect(verdictOf({ tier: 'Significant', leadingVariant: 'Variant' }).winner).toBe('variant');
    expect(knownTierLabel('trending')).toBeNull();
    expect(knownTierLabel('SIGNIFICANT')).toBe('Significant');
  });
});

describe('goals match whatever their spelling (item 3)', () => {
  it('reads clickThroughRate, ClickThroughRate and click-through-rate as one goal', () => {
    for (const spelling of [
      'clickThroughRate',
      'ClickThroughRate',
      'click-through-rate',
      'CLICK_THROUGH_RATE',
    ])
      expect(metricOfGoal(spelling)?.abbr).toBe('CTR');
    expect(metricOfGoal('RevenuePerVisitor')?.abbr).toBe('RPV');
    expect(metricOfGoal('bounce-rate')).toBeNull();
    expect(isGoalId('5', 'clickThroughRate')).toBe(true);
    expect(isGoalId('4', 'clickThroughRate')).toBe(false);
  });
});

describe('two figures about one thing that disagree are shown as such (item 1)', () => {
  const found = disagreements(foreignResults(), foreignTest.goal);
  const ids = found.map((d) => d.id);

  it('flags a 93% probability to win beside "no leader"', () => {
    expect(ids).toContain('probability-vs-leader');
    expect(found.find((d) => d.id === 'probability-vs-leader')?.text).toMatch(/93%.*no leader/);
  });

  it("flags the API's lift against Splitbook's lift of the goal metric", () => {
    expect(ids).toContain('lift-vs-goal');
  });

  it("flags a goal's API lift against the lift computed from the sides", () => {
    expect(ids).toContain('goal-4');
    expect(ids).not.toContain('goal-5');
  });

  it('finds nothing to say about figures that agree', () => {
    const agreeing = {
      ...foreignResults(),
      lift: 75,
      variantProbabilityWin: 0.5,
      liftByMetric: {},
    };
    expect(disagreements(agreeing, foreignTest.goal)).toEqual([]);
  });
});

describe('rates are read on the scale their counts show', () => {
  it('tells a percent from a fraction, and admits when it cannot', () => {
    expect(rateScale(3.4, 34, 1000)).toBe('percent');
    expect(rateScale(0.034, 34, 1000)).toBe('fraction');
    expect(rateScale(7, 34, 1000)).toBe('unknown');
    expect(rateScale(0.5, 0, 0)).toBe('unknown');
  });
});

describe("a run's length comes from its dates, not from the daily map (item 4)", () => {
  it('counts 31 days for 1 to 31 May and 28 days with data in a sparse map', () => {
    expect(daysRunning(foreignTest.startAt, foreignTest.endAt, Date.now())).toBe(31);
    expect(daysWithData(foreignResults().daily)).toBe(28);
  });

  it('runs to now for a test without an end, and knows nothing without a start', () => {
    expect(daysRunning('2026-05-01T10:00:00Z', null, Date.parse('2026-05-03T01:00:00Z'))).toBe(3);
    expect(daysRunning(null, null, Date.now())).toBeNull();
  });
});
