// The cumulative curve over time: one point per readable day, ending at the cumulative counts.
import { describe, expect, it } from 'vitest';
import { overTime } from '#shared/domain/statistics/over-time';
import { compareRates } from '#shared/domain/statistics/probability';
import { posteriorOf } from '#shared/domain/statistics/posterior';
import { dayNumberOf } from '#shared/domain/statistics/daily';
import { evenDays, resultsOf } from './support';

describe('over time', () => {
  it('gives one cumulative point per day, in date order, skipping keys that are not dates', () => {
    const results = resultsOf(
      evenDays(10, { visitors: 1000, conversions: 30 }, { visitors: 1000, conversions: 36 }),
    );
    const daily = {
      ...results.daily,
      'not-a-date': Object.values(results.daily)[0],
      '2026-02-31': Object.values(results.daily)[0],
    };
    const points = overTime(daily as typeof results.daily, 'cvr');
    expect(points).toHaveLength(10);
    expect(points.map((p) => p.date)).toEqual([...points.map((p) => p.date)].sort());
    const last = points[points.length - 1];
    expect(last?.controlTrials).toBe(10_000);
    expect(last?.variantCount).toBe(360);
    expect(last?.pWin).toBeCloseTo(
      compareRates(posteriorOf(300, 10_000), posteriorOf(360, 10_000)).pWin,
      12,
    );
    // More data, narrower interval.
    const first = points[0];
    expect((last?.liftCiHigh ?? 0) - (last?.liftCiLow ?? 0)).toBeLessThan(
      (first?.liftCiHigh ?? 0) - (first?.liftCiLow ?? 0),
    );
  });

  it('reads only real calendar dates as days', () => {
    expect(dayNumberOf('2026-05-01')).not.toBeNull();
    expect(dayNumberOf('2026-05-01T00:00:00Z')).toBe(dayNumberOf('2026-05-01'));
    expect(dayNumberOf('2026-02-31')).toBeNull();
    expect(dayNumberOf('yesterday')).toBeNull();
  });

  it('runs 365 days in well under 50 ms', () => {
    const results = resultsOf(
      Array.from({ length: 365 }, (_, i) => ({
        control: { visitors: 2000 + i, conversions: 60 + (i % 5) },
        variant: { visitors: 2000 + i, conversions: 64 + (i % 7) },
      })),
    );
    overTime(results.daily, 'cvr');
    const started = performance.now();
    const points = overTime(results.daily, 'cvr');
    const elapsed = performance.now() - started;
    expect(points).toHaveLength(365);
    // Generous bound for a loaded CI machine; bench/statistics.bench.ts prints the real figure.
    expect(elapsed).toBeLessThan(250);
  });
});
