// The 95% credible interval of the lift matches SciPy and a million seeded draws, contains the observed lift, and narrows with data.
import { describe, expect, it } from 'vitest';
import fixtures from './fixtures/statistics.json';
import { posteriorOf } from '#shared/domain/statistics/posterior';
import { liftInterval } from '#shared/domain/statistics/interval';

const cases = fixtures.binary.map((c) => ({
  ...c,
  interval: liftInterval(
    posteriorOf(c.control.successes, c.control.trials),
    posteriorOf(c.variant.successes, c.variant.trials),
  ),
}));

describe('lift interval', () => {
  it.each(cases)(
    'ends within 1e-3 of the exact quantiles (relative beyond ±100%) for $name',
    (c) => {
      const [low, high] = c.liftInterval.exact as [number, number];
      expect(Math.abs(c.interval.low - low)).toBeLessThan(1e-3 * Math.max(1, Math.abs(low)));
      expect(Math.abs(c.interval.high - high)).toBeLessThan(1e-3 * Math.max(1, Math.abs(high)));
    },
  );

  it.each(cases)(
    'ends within 1e-3 of a million seeded draws, or within 4 standard errors of them, for $name',
    (c) => {
      const [low, high] = c.liftInterval.monteCarlo as [number, number];
      const [seLow, seHigh] = c.liftInterval.monteCarloStandardError as [number, number];
      expect(Math.abs(c.interval.low - low)).toBeLessThan(Math.max(1e-3, 4 * seLow));
      expect(Math.abs(c.interval.high - high)).toBeLessThan(Math.max(1e-3, 4 * seHigh));
    },
  );

  it.each(cases.filter((c) => c.control.successes > 0))(
    'contains the observed lift for $name',
    (c) => {
      const observed =
        c.variant.successes / c.variant.trials / (c.control.successes / c.control.trials) - 1;
      expect(c.interval.low).toBeLessThanOrEqual(observed);
      expect(c.interval.high).toBeGreaterThanOrEqual(observed);
    },
  );

  it('narrows as data grows at the same rates', () => {
    const widths = [1, 10, 100].map((k) => {
      const interval = liftInterval(posteriorOf(30 * k, 1000 * k), posteriorOf(33 * k, 1000 * k));
      return interval.high - interval.low;
    });
    expect(widths[1]).toBeLessThan(widths[0] ?? 0);
    expect(widths[2]).toBeLessThan(widths[1] ?? 0);
  });
});
