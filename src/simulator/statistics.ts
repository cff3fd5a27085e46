// Probability that the variant beats the control, and the lifecycle tier a metric has reached.
// Normal approximations throughout: accurate enough for simulated data and cheap enough to run per day.
import type { Counts, Metric } from './metrics';

/** Standard normal CDF via the Abramowitz-Stegun 7.1.26 erf approximation (error < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t *
    (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

type Estimate = { mean: number; variance: number };

/** Beta(successes + 1, failures + 1) posterior of a proportion, as mean and variance. */
function proportion(successes: number, trials: number): Estimate {
  const mean = (successes + 1) / (trials + 2);
  return { mean, variance: (mean * (1 - mean)) / (trials + 3) };
}

/** Assumed coefficient of variation of one order's value: the counts carry no per-order spread. */
const ORDER_VALUE_CV = 0.6;

function estimate(metric: Metric, counts: Counts): Estimate | null {
  const revenue = counts.revenueCents / 100;
  switch (metric.rate) {
    case 'cvr':
      return counts.visitors === 0 ? null : proportion(counts.conversions, counts.visitors);
    case 'acr':
      return counts.visitors === 0 ? null : proportion(counts.carts, counts.visitors);
    case 'ctr':
      return counts.visits === 0
        ? null
        : proportion(Math.min(counts.clicks, counts.visits), counts.visits);
    case 'aov': {
      if (counts.orders === 0) return null;
      const aov = revenue / counts.orders;
      return { mean: aov, variance: (aov * ORDER_VALUE_CV) ** 2 / counts.orders };
    }
    case 'rpv': {
      if (counts.visitors === 0) return null;
      // Revenue per visitor is a zero-inflated order value: E[X^2] = p * aov^2 * (1 + cv^2).
      const p = counts.orders / counts.visitors;
      const aov = counts.orders === 0 ? 0 : revenue / counts.orders;
      const mean = revenue / counts.visitors;
      const secondMoment = p * aov * aov * (1 + ORDER_VALUE_CV ** 2);
      return { mean, variance: Math.max(secondMoment - mean * mean, 1e-12) / counts.visitors };
    }
  }
}

/** P(variant's true metric > control's); 0.5 when either side has no data yet. */
export function variantProbabilityToWin(metric: Metric, control: Counts, variant: Counts): number {
  const c = estimate(metric, control);
  const v = estimate(metric, variant);
  if (c === null || v === null) return 0.5;
  const spread = Math.sqrt(c.variance + v.variance);
  if (spread === 0) return 0.5;
  return normalCdf((v.mean - c.mean) / spread);
}

export type Tier = 'learning' | 'emerging' | 'significant' | 'inconclusive';

/** Below this many visitors on the smaller side, or this many days, a result is not yet stable. */
export const STABLE_VISITORS = 1000;
export const STABLE_DAYS = 7;
/** After this many days without a clear leader a test is called inconclusive. */
export const INCONCLUSIVE_DAYS = 28;

export type TierInput = { variantProbability: number; minSideVisitors: number; days: number };

export function isNotYetStable(input: TierInput): boolean {
  return input.minSideVisitors < STABLE_VISITORS || input.days < STABLE_DAYS;
}

/** learning (unstable) -> significant (leader >= 95%) | emerging (>= 80%) | inconclusive (long, no leader). */
export function tierOf(input: TierInput): Tier {
  if (isNotYetStable(input)) return 'learning';
  const leader = Math.max(input.variantProbability, 1 - input.variantProbability);
  if (leader >= 0.95) return 'significant';
  if (leader >= 0.8) return 'emerging';
  return input.days >= INCONCLUSIVE_DAYS ? 'inconclusive' : 'learning';
}
