// Empirical Bayes shrinkage of test lifts toward the programme's mean (normal–normal model, random
// effects by DerSimonian–Laird): a lucky winner is not taken at face value. A test measured precisely
// keeps most of its own lift; a small one moves most of the way to the mean.

/** One concluded test's lift on the log scale, θ = log(1 + lift), with its standard error. */
export type MeasuredLift = { theta: number; se: number };

export type ProgrammePrior = {
  /** The programme's mean log lift. */
  mean: number;
  /** The spread of true log lifts between tests (τ²); 0 when the tests differ no more than their noise. */
  between: number;
  /** The variance of that mean's estimate (it is itself uncertain). */
  meanVariance: number;
  /** Tests it was estimated from. */
  tests: number;
};

/** Fewer tests than this give no honest estimate of the spread: no shrinkage is claimed. */
export const MIN_TESTS_FOR_PRIOR = 3;

/** The programme's prior from its concluded tests (DerSimonian–Laird), or null with too few. */
export function programmePrior(lifts: readonly MeasuredLift[]): ProgrammePrior | null {
  const usable = lifts.filter((l) => Number.isFinite(l.theta) && l.se > 0 && Number.isFinite(l.se));
  if (usable.length < MIN_TESTS_FOR_PRIOR) return null;
  const weights = usable.map((l) => 1 / l.se ** 2);
  const sumW = weights.reduce((a, b) => a + b, 0);
  const fixedMean = usable.reduce((sum, l, i) => sum + (weights[i] ?? 0) * l.theta, 0) / sumW;
  const q = usable.reduce((sum, l, i) => sum + (weights[i] ?? 0) * (l.theta - fixedMean) ** 2, 0);
  const c = sumW - weights.reduce((sum, w) => sum + w * w, 0) / sumW;
  const between = Math.max(0, (q - (usable.length - 1)) / c);
  const randomWeights = usable.map((l) => 1 / (l.se ** 2 + between));
  const sumR = randomWeights.reduce((a, b) => a + b, 0);
  const mean = usable.reduce((sum, l, i) => sum + (randomWeights[i] ?? 0) * l.theta, 0) / sumR;
  return { mean, between, meanVariance: 1 / sumR, tests: usable.length };
}

export type ShrunkLift = {
  /** Relative lifts (fractions): as measured, and shrunk toward the programme's mean. */
  raw: number;
  shrunk: number;
  low: number;
  high: number;
  /** How much of its own evidence the test keeps (0: all the mean, 1: all its own). */
  weight: number;
};

/** A test's lift shrunk toward the prior, with a 95% interval; unshrunk (weight 1) without a prior. */
export function shrink(lift: MeasuredLift, prior: ProgrammePrior | null, z = 1.959963984540054): ShrunkLift {
  if (prior === null) {
    return {
      raw: Math.expm1(lift.theta),
      shrunk: Math.expm1(lift.theta),
      low: Math.expm1(lift.theta - z * lift.se),
      high: Math.expm1(lift.theta + z * lift.se),
      weight: 1,
    };
  }
  const weight = prior.between / (prior.between + lift.se ** 2);
  const theta = prior.mean + weight * (lift.theta - prior.mean);
  // The posterior's own spread, plus the mean's uncertainty carried by the part taken from it.
  const sd = Math.sqrt(weight * lift.se ** 2 + (1 - weight) ** 2 * prior.meanVariance);
  return {
    raw: Math.expm1(lift.theta),
    shrunk: Math.expm1(theta),
    low: Math.expm1(theta - z * sd),
    high: Math.expm1(theta + z * sd),
    weight,
  };
}
