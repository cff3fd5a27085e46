// Sample-ratio mismatch: the chi-square test against the configured split matches SciPy, and its onset is found by day.
import { describe, expect, it } from 'vitest';
import fixtures from './fixtures/statistics.json';
import { sampleRatioTest, srmOnset, SRM_MIN_TOTAL_VISITORS } from '#shared/domain/statistics/srm';
import { dailySeries } from '#shared/domain/statistics/daily';
import { evenDays, resultsOf } from './support';

describe('sample-ratio test', () => {
  it.each(fixtures.srm)('matches SciPy for $name', (c) => {
    const [control, variant] = c.visitors as [number, number];
    const [tc, tv] = c.traffic as [number, number];
    const check = sampleRatioTest(control, variant, tc, tv);
    expect(check.judged).toBe(true);
    expect(check.chiSquare).toBeCloseTo(c.chiSquare, 9);
    expect(Math.abs((check.pValue ?? -1) - c.pValue)).toBeLessThan(1e-12 + 1e-6 * c.pValue);
    expect(check.mismatch).toBe(c.pValue < 0.001);
  });

  it('flags 600 vs 400 at 50/50 (χ² = 40, p ≈ 2.5e-10) but not 10,120 vs 9,880 (p ≈ 0.09)', () => {
    const bad = sampleRatioTest(600, 400, 50, 50);
    expect(bad.chiSquare).toBe(40);
    expect(bad.pValue).toBeCloseTo(2.54e-10, 11);
    expect(bad.mismatch).toBe(true);
    const fine = sampleRatioTest(10_120, 9_880, 50, 50);
    expect(fine.pValue).toBeCloseTo(0.0897, 4);
    expect(fine.mismatch).toBe(false);
  });

  it(`is not judged below ${SRM_MIN_TOTAL_VISITORS} visitors, nor with a side configured to no traffic`, () => {
    const few = sampleRatioTest(150, 10, 50, 50);
    expect(few.judged).toBe(false);
    expect(few.mismatch).toBe(false);
    expect(few.reason).toMatch(/Too few visitors/);
    expect(sampleRatioTest(500, 500, 100, 0).judged).toBe(false);
  });

  it('reports the first day from which the cumulative split stays mismatched', () => {
    // Five balanced days, then the variant loses 40% of its visitors.
    const days = [
      ...evenDays(5, { visitors: 1000, conversions: 30 }, { visitors: 1000, conversions: 30 }),
      ...evenDays(10, { visitors: 1000, conversions: 30 }, { visitors: 600, conversions: 20 }),
    ];
    const series = dailySeries(resultsOf(days).daily).days;
    const onset = srmOnset(series, 50, 50);
    expect(onset).not.toBeNull();
    expect(onset && onset >= '2026-05-06').toBe(true);
    expect(onset && onset <= '2026-05-08').toBe(true);
    expect(
      srmOnset(
        dailySeries(
          resultsOf(
            evenDays(10, { visitors: 900, conversions: 9 }, { visitors: 100, conversions: 1 }),
          ).daily,
        ).days,
        90,
        10,
      ),
    ).toBeNull();
  });
});
