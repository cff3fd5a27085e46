// The log-space CDF tables agree with @stdlib's regularized incomplete beta, an independent implementation.
import betainc from '@stdlib/math-base-special-betainc';
import { expect, it } from 'vitest';
import { logPosterior, posteriorOf } from '#shared/domain/statistics/posterior';

it.each([
  [0, 0],
  [0, 1_000_000],
  [3, 20],
  [10, 10],
  [120, 4000],
  [30_000, 1_000_000],
  [999_990, 1_000_000],
])(
  'reads the CDF of Beta after %i of %i within 2e-5 of betainc across the distribution',
  (successes, trials) => {
    const posterior = posteriorOf(successes, trials);
    const table = logPosterior(posterior);
    for (let k = -6; k <= 6; k += 0.25) {
      const u = Math.min(0, table.logMean + k * table.logSd);
      const exact = betainc(Math.exp(u), posterior.alpha, posterior.beta);
      expect(Math.abs(table.cdf(u) - exact)).toBeLessThan(2e-5);
    }
  },
);
