// Records as an independent implementation of the API sends them (issue 12): unknown enum values,
// rates as fractions, a sparse daily map, camelCase goal names, and figures that disagree.
import type { TestResults } from '#shared/api/index';
import { dateKey, evenDays, resultsOf, testOf } from '../statistics/support';

/** A test whose goal is spelled `clickThroughRate`, which ran 31 days (1 to 31 May). */
export const foreignTest = testOf({
  goal: 'clickThroughRate',
  status: 'completed',
  startAt: '2026-05-01T09:00:00Z',
  endAt: '2026-05-31T17:00:00Z',
});

/** Its results: 28 days of data with gaps, P(win) 93% with no leader, lifts that contradict the sides. */
export function foreignResults(): TestResults {
  const days = evenDays(
    31,
    { visitors: 400, conversions: 12, clicks: 40, carts: 50 },
    { visitors: 400, conversions: 14, clicks: 70, carts: 44 },
  );
  const base = resultsOf(days);
  const daily: TestResults['daily'] = {};
  days.forEach((_, i) => {
    // Days 10, 11 and 20 have no data: the map is sparse.
    if (i === 9 || i === 10 || i === 19) return;
    const key = dateKey('2026-05-01', i);
    const day = base.daily[key];
    if (day) daily[key] = day;
  });
  const asFraction = <T extends TestResults['control']>(s: T): T => ({
    ...s,
    cvr: s.cvr / 100,
    cnv: s.cnv / 100,
    ctr: s.ctr / 100,
    acr: s.acr / 100,
  });
  const lifecycle = {
    goal: 5,
    tier: 'trending',
    tierReachedAt: null,
    leadingVariant: null,
    probabilityToWin: 0.93,
    notYetStable: false,
  };
  return {
    ...base,
    control: asFraction(base.control),
    variant: asFraction(base.variant),
    daily,
    lift: -6.5,
    variantProbabilityWin: 0.93,
    controlProbabilityWin: 0.07,
    changeRevenue: 6456,
    liftByMetric: { '4': { value: 10.2 }, '5': { value: 76.9 } },
    lifecycle,
    lifecycleByGoal: {
      '4': {
        ...lifecycle,
        goal: 4,
        tier: 'significant',
        leadingVariant: 'variant',
        probabilityToWin: 0.97,
      },
      '5': lifecycle,
    },
  };
}
