// Revenue lift: an approximate day-cluster interval from 7 days of data, none before.
import { describe, expect, it } from 'vitest';
import { dailySeries } from '#shared/domain/statistics/daily';
import { revenueLift, REVENUE_MIN_DAYS } from '#shared/domain/statistics/revenue';
import { resultsOf, type DayCounts } from './support';

function noisyDays(n: number, variantRevenueFactor: number): DayCounts[] {
  return Array.from({ length: n }, (_, i) => {
    const visitors = 1000 + ((i * 137) % 300);
    const orders = 30 + ((i * 7) % 11);
    const revenue = orders * (48 + ((i * 13) % 9));
    return {
      control: { visitors, conversions: orders, revenue },
      variant: {
        visitors,
        conversions: orders,
        revenue: revenue * variantRevenueFactor * (1 + (((i * 29) % 7) - 3) / 50),
      },
    };
  });
}

describe('revenue lift', () => {
  it(`is null with fewer than ${REVENUE_MIN_DAYS} days with data`, () => {
    const days = dailySeries(resultsOf(noisyDays(REVENUE_MIN_DAYS - 1, 1.1)).daily).days;
    expect(revenueLift(days, 'rpv')).toBeNull();
  });

  it('is an approximate interval around the observed lift from 7 days on', () => {
    const days = dailySeries(resultsOf(noisyDays(14, 1.1)).daily).days;
    const rpv = revenueLift(days, 'rpv');
    expect(rpv).not.toBeNull();
    if (rpv === null) return;
    expect(rpv.approximate).toBe(true);
    expect(rpv.days).toBe(14);
    expect(rpv.observedLift).toBeGreaterThan(0.05);
    expect(rpv.liftCiLow).toBeLessThan(rpv.observedLift);
    expect(rpv.liftCiHigh).toBeGreaterThan(rpv.observedLift);
    const aov = revenueLift(days, 'aov');
    expect(aov?.observedLift).toBeCloseTo(rpv.observedLift, 9);
  });

  it('narrows with more days', () => {
    const short = revenueLift(dailySeries(resultsOf(noisyDays(8, 1.1)).daily).days, 'rpv');
    const long = revenueLift(dailySeries(resultsOf(noisyDays(60, 1.1)).daily).days, 'rpv');
    expect(short && long).toBeTruthy();
    if (!short || !long) return;
    expect(long.liftCiHigh - long.liftCiLow).toBeLessThan(short.liftCiHigh - short.liftCiLow);
  });
});
