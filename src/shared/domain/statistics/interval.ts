// The 95% credible interval of the relative lift pB/pA - 1 of a binary rate, by inverting its exact CDF.
//
// Deterministic, no Monte Carlo: with D = log pB - log pA,
//   P(D <= d) = ∫ f_A(u) F_B(u + d) du = ∫ f_B(v) (1 - F_A(v - d)) dv,
// integrated over the narrower posterior (posterior.ts), and solved for d by safeguarded Newton (the
// derivative is the same integral with the density in place of the CDF). The lift is e^d - 1.
// Checked in test/statistics against root-finding on SciPy's quad (< 1e-3 required) and against
// 1,000,000 seeded NumPy draws.
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import { logPosterior, type BetaPosterior, type LogPosterior } from './posterior';

export const CREDIBLE_LEVEL = 0.95;

export type LiftInterval = { low: number; high: number };

/**
 * P(log pB - log pA <= d) and its derivative in d.
 * A side without failures (beta = 1) has its density jump to 0 at p = 1 (u = 0): its CDF has a corner
 * there, which fixed nodes would smear, so the integral is split at the corner and the part beyond it,
 * where that CDF is exactly 1, is read from the other side's CDF.
 */
function differenceCdf(A: LogPosterior, B: LogPosterior, d: number): { cdf: number; density: number } {
  let cdf = 0;
  let density = 0;
  const narrowA = A.logSd <= B.logSd;
  if (narrowA && B.posterior.beta === 1) {
    // Beyond u = -d, F_B(u + d) = 1 and f_B(u + d) = 0.
    cdf = A.integrate(-Infinity, -d, (u) => B.cdf(u + d)) + (1 - A.cdf(-d));
    density = A.integrate(-Infinity, -d, (u) => B.density(u + d));
    return { cdf, density };
  }
  if (!narrowA && A.posterior.beta === 1) {
    // Beyond v = d, 1 - F_A(v - d) = 0.
    cdf = B.integrate(-Infinity, d, (v) => 1 - A.cdf(v - d));
    density = B.integrate(-Infinity, d, (v) => A.density(v - d));
    return { cdf, density };
  }
  if (narrowA) {
    for (let k = 0; k < A.nodes.length; k++) {
      const u = (A.nodes[k] ?? 0) + d;
      const w = A.weights[k] ?? 0;
      cdf += w * B.cdf(u);
      density += w * B.cdfSlope(u);
    }
  } else {
    for (let k = 0; k < B.nodes.length; k++) {
      const v = (B.nodes[k] ?? 0) - d;
      const w = B.weights[k] ?? 0;
      cdf += w * (1 - A.cdf(v));
      density += w * A.cdfSlope(v);
    }
  }
  return { cdf, density };
}

/** The q-quantile of log pB - log pA: Newton from the normal approximation, bisection when Newton strays. */
function differenceQuantile(A: LogPosterior, B: LogPosterior, q: number): number {
  const centre = B.logMean - A.logMean;
  const sd = Math.hypot(A.logSd, B.logSd);
  let lo = centre - 40 * sd;
  let hi = centre + 40 * sd;
  let d = centre + normalQuantile(q, 0, 1) * sd;
  for (let iter = 0; iter < 100; iter++) {
    const { cdf, density } = differenceCdf(A, B, d);
    const gap = cdf - q;
    if (gap > 0) hi = d;
    else lo = d;
    let next = density > 0 ? d - gap / density : Number.NaN;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    // Newton converges quadratically: a step under 1e-8 leaves an error far below the 1e-3 the interval
    // needs, and usually comes on the second evaluation from the normal start (a third is saved).
    if (Math.abs(next - d) < 1e-8 * Math.max(1, Math.abs(d)) || hi - lo < 1e-12) return next;
    d = next;
  }
  return d;
}

/**
 * The central credible interval of the lift (variant over control, as a fraction: 0.05 = +5%).
 * `logs` reuses posterior tables already built for the same sides.
 */
export function liftInterval(
  control: BetaPosterior,
  variant: BetaPosterior,
  level = CREDIBLE_LEVEL,
  logs?: { control: LogPosterior; variant: LogPosterior },
): LiftInterval {
  const A = logs?.control ?? logPosterior(control);
  const B = logs?.variant ?? logPosterior(variant);
  const tail = (1 - level) / 2;
  return {
    low: Math.expm1(differenceQuantile(A, B, tail)),
    high: Math.expm1(differenceQuantile(A, B, 1 - tail)),
  };
}
