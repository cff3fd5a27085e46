// P(variant beats control) and expected loss match SciPy's references, by both methods, and obey their symmetries.
import { describe, expect, it } from 'vitest';
import fixtures from './fixtures/statistics.json';
import { logPosterior, posteriorOf } from '#shared/domain/statistics/posterior';
import {
  compareRates,
  exactProbabilityBeats,
  quadratureComparison,
} from '#shared/domain/statistics/probability';

const cases = fixtures.binary.map((c) => ({
  ...c,
  a: posteriorOf(c.control.successes, c.control.trials),
  b: posteriorOf(c.variant.successes, c.variant.trials),
}));

describe('P(variant beats control)', () => {
  it.each(cases)('is within 1e-4 of SciPy for $name (the method compareRates picks)', (c) => {
    const result = compareRates(c.a, c.b);
    expect(Math.abs(result.pWin - c.pVariantBeatsControl)).toBeLessThan(1e-4);
  });

  it.each(cases)('is within 1e-4 of SciPy for $name by quadrature alone', (c) => {
    const result = quadratureComparison(logPosterior(c.a), logPosterior(c.b));
    expect(Math.abs(result.pWin - c.pVariantBeatsControl)).toBeLessThan(1e-4);
  });

  it.each(cases)('is within 1e-9 of SciPy for $name by the exact sum', (c) => {
    expect(Math.abs(exactProbabilityBeats(c.a, c.b) - c.pVariantBeatsControl)).toBeLessThan(1e-9);
  });

  it('uses the quadrature only when every count is large', () => {
    expect(
      compareRates(posteriorOf(30_000, 1_000_000), posteriorOf(30_500, 1_000_000)).method,
    ).toBe('quadrature');
    expect(compareRates(posteriorOf(0, 1_000_000), posteriorOf(5, 1_000_000)).method).toBe('exact');
  });

  it.each(cases)(
    'P(B > A) = 1 - P(A > B) for $name (to 1e-9 exact, to the quadrature error of ~1e-6 otherwise)',
    (c) => {
      const forward = compareRates(c.a, c.b);
      const backward = compareRates(c.b, c.a);
      expect(forward.pWin + backward.pWin).toBeCloseTo(1, forward.method === 'exact' ? 9 : 5);
    },
  );

  it('is one half for identical sides', () => {
    expect(compareRates(posteriorOf(37, 1200), posteriorOf(37, 1200)).pWin).toBeCloseTo(0.5, 12);
  });
});

describe('expected loss', () => {
  it.each(cases)('matches SciPy for $name (relative 1e-3, or 1e-12 absolute)', (c) => {
    const result = compareRates(c.a, c.b);
    expect(Math.abs(result.expectedLossVariant - c.expectedLossVariant)).toBeLessThan(
      1e-12 + 1e-3 * c.expectedLossVariant,
    );
    expect(Math.abs(result.expectedLossControl - c.expectedLossControl)).toBeLessThan(
      1e-12 + 1e-3 * c.expectedLossControl,
    );
  });

  it('of one choice is the other choice seen from the other side', () => {
    const a = posteriorOf(120, 4000);
    const b = posteriorOf(150, 4000);
    const ab = compareRates(a, b);
    const ba = compareRates(b, a);
    expect(ab.expectedLossVariant).toBeCloseTo(ba.expectedLossControl, 12);
    expect(ab.expectedLossControl).toBeCloseTo(ba.expectedLossVariant, 12);
  });
});
