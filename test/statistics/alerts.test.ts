// Each data-quality alert fires on the data it describes, and stays silent on clean data.
import { describe, expect, it } from 'vitest';
import { analyseTest, TestAnalysis, type AlertCode } from '#shared/domain/statistics/index';
import { dateKey, evenDays, resultsOf, side, testOf } from './support';

const NOW = Date.parse('2026-05-20T12:00:00Z');
/** 14 clean days, 2026-05-01 to 2026-05-14, matching the test's run; CVR 3.0% vs 3.2%. */
const cleanDays = () =>
  evenDays(14, { visitors: 1000, conversions: 30 }, { visitors: 1000, conversions: 32 });

function codes(
  test = testOf(),
  results = resultsOf(cleanDays(), { variantProbabilityWin: 0.9, controlProbabilityWin: 0.1 }),
): AlertCode[] {
  return analyseTest(test, results, { now: NOW }).alerts.map((alert) => alert.code);
}

function significant(tierReachedAt: string | null) {
  return {
    goal: 1,
    tier: 'Significant',
    tierReachedAt,
    leadingVariant: 'variant',
    probabilityToWin: 0.9,
    notYetStable: false,
  };
}

describe('data-quality alerts', () => {
  it('are silent on clean, consistent data', () => {
    expect(codes()).toEqual([]);
  });

  it('early-significance: called significant (any case) after 2 days of data, or with under 30 orders a side', () => {
    const early = resultsOf(cleanDays(), {
      lifecycle: significant('2026-05-02'),
      variantProbabilityWin: 0.9,
      controlProbabilityWin: 0.1,
    });
    expect(codes(testOf(), early)).toContain('early-significance');
    const fewOrders = resultsOf(
      evenDays(14, { visitors: 100, conversions: 2 }, { visitors: 100, conversions: 2 }),
      {
        lifecycle: significant('2026-05-14'),
        variantProbabilityWin: 0.5,
        controlProbabilityWin: 0.5,
      },
    );
    expect(codes(testOf(), fewOrders)).toContain('early-significance');
    const fine = resultsOf(cleanDays(), {
      lifecycle: significant('2026-05-10'),
      variantProbabilityWin: 0.9,
      controlProbabilityWin: 0.1,
    });
    expect(codes(testOf(), fine)).not.toContain('early-significance');
  });

  it('implausible-lift: the goal metric moves by more than 50% either way', () => {
    const big = resultsOf(
      evenDays(14, { visitors: 1000, conversions: 20 }, { visitors: 1000, conversions: 31 }),
      {
        variantProbabilityWin: 1,
        controlProbabilityWin: 0,
      },
    );
    expect(codes(testOf(), big)).toContain('implausible-lift');
    const down = resultsOf(
      evenDays(14, { visitors: 1000, conversions: 40 }, { visitors: 1000, conversions: 19 }),
      {
        variantProbabilityWin: 0,
        controlProbabilityWin: 1,
      },
    );
    expect(codes(testOf(), down)).toContain('implausible-lift');
    expect(codes()).not.toContain('implausible-lift');
  });

  it('sample-ratio-mismatch: visitors split away from the configured traffic', () => {
    const skewed = resultsOf(
      evenDays(14, { visitors: 1000, conversions: 30 }, { visitors: 800, conversions: 26 }),
      {
        variantProbabilityWin: 0.9,
        controlProbabilityWin: 0.1,
      },
    );
    const analysis = analyseTest(testOf(), skewed, { now: NOW });
    expect(analysis.alerts.map((a) => a.code)).toContain('sample-ratio-mismatch');
    expect(analysis.srm.onsetDate).not.toBeNull();
    // The same numbers are right for a test configured 55/45.
    const configured = testOf({
      control: { ...testOf().control, traffic: 55 },
      variant: {
        ...testOf().control,
        id: '00000000-0000-4000-8000-000000000002',
        type: 'variant',
        traffic: 45,
      },
    });
    expect(codes(configured, skewed)).not.toContain('sample-ratio-mismatch');
  });

  it('daily-totals-mismatch: daily orders or revenue do not add up to the totals (visitors are not checked)', () => {
    const base = resultsOf(cleanDays(), { variantProbabilityWin: 0.9, controlProbabilityWin: 0.1 });
    const moreOrders = {
      ...base,
      control: {
        ...base.control,
        orders: base.control.orders + 5,
        aov: base.control.revenue / (base.control.orders + 5),
      },
    };
    expect(codes(testOf(), moreOrders)).toContain('daily-totals-mismatch');
    const revenue = base.variant.revenue + 10;
    const moreRevenue = {
      ...base,
      variant: {
        ...base.variant,
        revenue,
        aov: revenue / base.variant.orders,
        rpv: revenue / base.variant.visitors,
        rps: revenue / base.variant.visitors,
      },
    };
    expect(codes(testOf(), moreRevenue)).toContain('daily-totals-mismatch');
    const cents = { ...base, variant: { ...base.variant, revenue: base.variant.revenue + 0.004 } };
    expect(codes(testOf(), cents)).not.toContain('daily-totals-mismatch');
    const fewerVisitors = {
      ...base,
      control: side({ visitors: 12_000, conversions: 420, revenue: base.control.revenue }),
    };
    expect(codes(testOf(), fewerVisitors)).not.toContain('daily-totals-mismatch');
  });

  it('missing-days: a gap inside the series, or days of the run with no entry', () => {
    const base = resultsOf(cleanDays(), { variantProbabilityWin: 0.9, controlProbabilityWin: 0.1 });
    const gap = { ...base, daily: { ...base.daily } };
    delete gap.daily[dateKey('2026-05-01', 6)];
    // Keep the totals equal to the days so that only the gap is reported.
    const withGap = resultsOf([...cleanDays().slice(0, 6), ...cleanDays().slice(7)], {
      variantProbabilityWin: 0.9,
      controlProbabilityWin: 0.1,
    });
    const alerts = analyseTest(testOf(), { ...withGap, daily: gap.daily }, { now: NOW }).alerts;
    expect(alerts.map((a) => a.code)).toContain('missing-days');
    // The run lasts until 2026-05-24 but the series stops on 2026-05-14.
    expect(codes(testOf({ endAt: '2026-05-24T18:00:00Z' }))).toContain('missing-days');
    // A running test: the edge day (today) may be empty.
    expect(
      codes(
        testOf({ endAt: null }),
        resultsOf(
          evenDays(20, { visitors: 1000, conversions: 30 }, { visitors: 1000, conversions: 32 }),
          { variantProbabilityWin: 0.9, controlProbabilityWin: 0.1 },
        ),
      ),
    ).not.toContain('missing-days');
  });

  it('probability-model-differs (info): the store’s P(win) is more than 0.1 from ours', () => {
    const results = resultsOf(cleanDays(), {
      variantProbabilityWin: 0.5,
      controlProbabilityWin: 0.5,
    });
    const alert = analyseTest(testOf(), results, { now: NOW }).alerts.find(
      (a) => a.code === 'probability-model-differs',
    );
    expect(alert?.severity).toBe('info');
    // Ours is ~0.79 for 420 vs 448 conversions of 14,000.
    expect(
      codes(
        testOf(),
        resultsOf(cleanDays(), { variantProbabilityWin: 0.75, controlProbabilityWin: 0.25 }),
      ),
    ).not.toContain('probability-model-differs');
  });

  it('probabilities-do-not-sum-to-one: the two probabilities to win, with a hint when they look like percent', () => {
    expect(
      codes(
        testOf(),
        resultsOf(cleanDays(), { variantProbabilityWin: 0.8, controlProbabilityWin: 0.1 }),
      ),
    ).toContain('probabilities-do-not-sum-to-one');
    const percent = analyseTest(
      testOf(),
      resultsOf(cleanDays(), { variantProbabilityWin: 80, controlProbabilityWin: 20 }),
      { now: NOW },
    );
    expect(
      percent.alerts.find((a) => a.code === 'probabilities-do-not-sum-to-one')?.message,
    ).toMatch(/percentages/);
    expect(codes()).not.toContain('probabilities-do-not-sum-to-one');
  });

  it('contradictory-counts: more conversions or carts than visitors, or a rate that fits none of its readings', () => {
    const base = resultsOf(cleanDays(), { variantProbabilityWin: 0.9, controlProbabilityWin: 0.1 });
    const conversions = {
      ...base,
      variant: {
        ...base.variant,
        conversions: base.variant.visitors + 1,
        cvr: ((base.variant.visitors + 1) / base.variant.visitors) * 100,
      },
    };
    expect(codes(testOf(), conversions)).toContain('contradictory-counts');
    const wrongRate = { ...base, control: { ...base.control, cvr: 3.5 } };
    expect(codes(testOf(), wrongRate)).toContain('contradictory-counts');
    const rounded = {
      ...base,
      control: { ...base.control, cvr: Number(base.control.cvr.toFixed(2)) },
    };
    expect(codes(testOf(), rounded)).not.toContain('contradictory-counts');
  });

  it('contradictory-counts: more clicks than visitors is a store counting clicks per visitor, not a contradiction', () => {
    const base = resultsOf(cleanDays(), { variantProbabilityWin: 0.9, controlProbabilityWin: 0.1 });
    const clicks = base.variant.visitors + 400;
    const perVisitor = {
      ...base,
      variant: { ...base.variant, clicks, ctr: (clicks / base.variant.visitors) * 100 },
    };
    const analysis = analyseTest(testOf(), perVisitor, { now: NOW });
    expect(analysis.alerts.map((a) => a.code)).not.toContain('contradictory-counts');
    // Not a yes/no rate, so the binary analysis leaves it out.
    expect(analysis.perMetric.ctr).toBeNull();
    expect(analysis.perMetric.cvr).not.toBeNull();
  });

  it("contradictory-counts: a store sending cnv as a count and ctr per visitor (another server's readings) is consistent", () => {
    const base = resultsOf(cleanDays(), { variantProbabilityWin: 0.9, controlProbabilityWin: 0.1 });
    const otherServer = (s: typeof base.control) => ({
      ...s,
      visits: s.visitors * 2,
      cnv: s.conversions,
      ctr: (s.clicks / s.visitors) * 100,
    });
    expect(
      codes(testOf(), {
        ...base,
        control: otherServer(base.control),
        variant: otherServer(base.variant),
      }),
    ).not.toContain('contradictory-counts');
  });

  it('contradictory-counts: shares sent as fractions (the API states no unit) are not a contradiction', () => {
    const base = resultsOf(cleanDays(), { variantProbabilityWin: 0.9, controlProbabilityWin: 0.1 });
    const asFractions = (side: typeof base.control) => ({
      ...side,
      cvr: side.cvr / 100,
      cnv: side.cnv / 100,
      acr: side.acr / 100,
      ctr: side.ctr / 100,
    });
    const fractions = {
      ...base,
      control: asFractions(base.control),
      variant: asFractions(base.variant),
    };
    expect(codes(testOf(), fractions)).not.toContain('contradictory-counts');
    const wrong = { ...fractions, control: { ...fractions.control, cvr: 0.5 } };
    const message = analyseTest(testOf(), wrong, { now: NOW }).alerts.find(
      (a) => a.code === 'contradictory-counts',
    )?.message;
    expect(message).toMatch(
      /^The control's figures contradict each other: CVR is 0\.5, which fits none of its readings/,
    );
    expect(message).not.toMatch(/\d{7}/);
  });
});

describe('analyseTest', () => {
  it('returns a summary that parses with its zod schema', () => {
    const analysis = analyseTest(
      testOf(),
      resultsOf(cleanDays(), { variantProbabilityWin: 0.9, controlProbabilityWin: 0.1 }),
      { now: NOW },
    );
    expect(TestAnalysis.parse(analysis)).toEqual(analysis);
    expect(analysis.goalMetric).toBe('cvr');
    expect(analysis.perMetric.cvr?.controlCount).toBe(420);
    expect(analysis.revenue?.rpv?.approximate).toBe(true);
    expect(analysis.srm.judged).toBe(true);
  });
});
