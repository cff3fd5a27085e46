// P(variant beats control) and the expected loss of each choice, for a binary rate with Beta(1, 1) priors.
//
// Two methods, both checked against SciPy in test/statistics (|error| < 1e-4 required, ~1e-9 measured):
// - exact: Evan Miller's closed form, a finite sum whose length is one of the four counts (successes or
//   failures of either side); we pick the shortest by symmetry. Terms come from a ratio recurrence, so a
//   sum of n terms costs n multiplications and its rounding error is ~n·1e-16 relative.
// - quadrature: when every count exceeds EXACT_MAX_TERMS (large tests, where both posteriors are close to
//   normal), composite Gauss–Legendre over the narrower posterior (in log space) times the CDF of the other,
//   read from its table (posterior.ts). A normal approximation of the difference is NOT used: it is off by
//   more than 1e-4 near the extremes.
import betaln from '@stdlib/math-base-special-betaln';
import { logPosterior, posteriorMean, type BetaPosterior, type LogPosterior } from './posterior';

/** Beyond this many terms the exact sums (three per comparison, ~3 ns a term) cost more than the quadrature (~10 µs); see bench/statistics. */
export const EXACT_MAX_TERMS = 1000;

export type Comparison = {
  /** P(p_variant > p_control). */
  pWin: number;
  /** E[max(p_control - p_variant, 0)]: rate lost, on average, by shipping the variant (a proportion, 0..1). */
  expectedLossVariant: number;
  /** E[max(p_variant - p_control, 0)]: rate lost by keeping the control. */
  expectedLossControl: number;
  method: 'exact' | 'quadrature';
};

/** Rescale the running term when it outgrows this, so a sum of huge and tiny terms never overflows. */
const RESCALE = 1e200;
const LOG_RESCALE = Math.log(RESCALE);

/**
 * Evan Miller's P(pB > pA) = Σ_{i<αB} B(αA+i, βA+βB) / ((βB+i) B(1+i, βB) B(αA, βA)).
 * Consecutive terms differ by the factor (αA+i)(βB+i) / ((αA+βA+βB+i)(1+i)), so only the first term
 * needs log-beta functions; the sum runs in linear space against a running log scale.
 */
function millerSum(aA: number, bA: number, aB: number, bB: number): number {
  // log of the first term: B(1, βB) = 1/βB cancels the 1/βB factor.
  let scale = betaln(aA, bA + bB) - betaln(aA, bA);
  let term = 1;
  let sum = 0;
  const n = Math.round(aB);
  const c = aA + bA + bB;
  for (let i = 0; i < n; i++) {
    sum += term;
    term *= ((aA + i) * (bB + i)) / ((c + i) * (1 + i));
    if (term > RESCALE) {
      term /= RESCALE;
      sum /= RESCALE;
      scale += LOG_RESCALE;
    }
  }
  return Math.exp(scale + Math.log(sum));
}

/** The length of the shortest of the four orientations of Miller's sum. */
function exactTerms(a: BetaPosterior, b: BetaPosterior): number {
  return Math.min(a.alpha, a.beta, b.alpha, b.beta);
}

/**
 * Exact P(pB > pA). Symmetries used: P(B > A) = 1 - P(A > B) (ties have probability 0), and
 * P(pB > pA) = P(1 - pA > 1 - pB), where 1 - p ~ Beta(β, α): so the sum may run over either side's
 * successes or failures.
 */
export function exactProbabilityBeats(a: BetaPosterior, b: BetaPosterior): number {
  const shortest = exactTerms(a, b);
  let p: number;
  if (shortest === b.alpha) p = millerSum(a.alpha, a.beta, b.alpha, b.beta);
  else if (shortest === a.alpha) p = 1 - millerSum(b.alpha, b.beta, a.alpha, a.beta);
  else if (shortest === a.beta) p = millerSum(b.beta, b.alpha, a.beta, a.alpha);
  else p = 1 - millerSum(a.beta, a.alpha, b.beta, b.alpha);
  return clamp01(p);
}

/**
 * Exact expected loss of choosing B over A, E[max(pA - pB, 0)], by Stucchio's identity
 * E[pA·1{pA>pB}] = mean(A)·P(A⁺ > B) with A⁺ = Beta(αA+1, βA), and likewise for B.
 */
function exactLoss(a: BetaPosterior, b: BetaPosterior): number {
  const aPlusBeatsB = 1 - exactProbabilityBeats({ alpha: a.alpha + 1, beta: a.beta }, b);
  const aBeatsBPlus = 1 - exactProbabilityBeats(a, { alpha: b.alpha + 1, beta: b.beta });
  return Math.max(0, posteriorMean(a) * aPlusBeatsB - posteriorMean(b) * aBeatsBPlus);
}

/**
 * The same three numbers by quadrature over the narrower of the two log posteriors:
 *   P(B > A)        = ∫ f_A(u) (1 - F_B(u)) du          or  ∫ f_B(v) F_A(v) dv
 *   E[(pA - pB)+]   = ∫ f_A(u) E[(e^u - pB)+] du       or  ∫ f_B(v) E[(pA - e^v)+] dv
 * Integrating over the narrower side keeps the other side's CDF smooth on the nodes' scale.
 */
export function quadratureComparison(A: LogPosterior, B: LogPosterior): Omit<Comparison, 'method'> {
  let pWin = 0;
  let lossVariant = 0;
  if (A.logSd <= B.logSd) {
    for (let k = 0; k < A.nodes.length; k++) {
      const u = A.nodes[k] ?? 0;
      const w = A.weights[k] ?? 0;
      pWin += w * (1 - B.cdf(u));
      lossVariant += w * B.below(u);
    }
  } else {
    for (let k = 0; k < B.nodes.length; k++) {
      const v = B.nodes[k] ?? 0;
      const w = B.weights[k] ?? 0;
      pWin += w * A.cdf(v);
      lossVariant += w * A.above(v);
    }
  }
  lossVariant = Math.max(0, lossVariant);
  return {
    pWin: clamp01(pWin),
    expectedLossVariant: lossVariant,
    expectedLossControl: Math.max(0, lossVariant + B.mean - A.mean),
  };
}

/** Compare a control and a variant posterior; `logs` reuses tables already built (e.g. by interval.ts). */
export function compareRates(
  control: BetaPosterior,
  variant: BetaPosterior,
  logs?: { control: LogPosterior; variant: LogPosterior },
): Comparison {
  if (exactTerms(control, variant) <= EXACT_MAX_TERMS) {
    const expectedLossVariant = exactLoss(control, variant);
    return {
      pWin: exactProbabilityBeats(control, variant),
      expectedLossVariant,
      // E[max(B - A, 0)] - E[max(A - B, 0)] = E[B - A].
      expectedLossControl: Math.max(0, expectedLossVariant + posteriorMean(variant) - posteriorMean(control)),
      method: 'exact',
    };
  }
  const A = logs?.control ?? logPosterior(control);
  const B = logs?.variant ?? logPosterior(variant);
  return { ...quadratureComparison(A, B), method: 'quadrature' };
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
