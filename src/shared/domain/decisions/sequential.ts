// The error budget of a decision that is checked every day: group sequential boundaries with
// Lan–DeMets O'Brien–Fleming-type alpha spending, and the normal-mixture confidence sequence
// (always valid) for what is left of the budget when no plan fits.
//
// Why these two (see docs/decisions.md for the measurements): a fixed-horizon test read again after
// every sync calls false winners in about a third of A/A tests. Both methods below keep the error at
// the chosen level however often the call is read; the group sequential test, which knows the test's
// planned length, finds nearly as many true effects as a fixed-horizon test read once at the end,
// while an always-valid interval tuned for no particular sample finds far fewer in the same days.
//
// Conventions: S is the score (estimate × information), a Brownian motion in the information I under
// H0 with independent increments; a look at information I has Z = S / √I. Boundaries are two-sided
// and symmetric: the call is made at the first look where |Z| ≥ c.
import erfc from '@stdlib/math-base-special-erfc';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';

const SQRT_2PI = Math.sqrt(2 * Math.PI);

/** P(Z ≤ x) of a standard normal. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** P(Z > x) of a standard normal, accurate far in the tail. */
export function normalTail(x: number): number {
  return 0.5 * erfc(x / Math.SQRT2);
}

function normalDensity(x: number): number {
  return Math.exp(-0.5 * x * x) / SQRT_2PI;
}

/** The z with P(Z > z) = p. */
export function upperQuantile(p: number): number {
  return normalQuantile(1 - p, 0, 1);
}

/**
 * Lan–DeMets O'Brien–Fleming-type spending (two-sided, α/2 a side, as gsDesign's sfLDOF): the error
 * budget spent by the information fraction t, 4 − 4Φ(z_{1−α/4} / √t). It spends almost nothing
 * early (a test is not called on its first days unless the effect is huge) and α in full at t = 1,
 * so the last boundary is close to the fixed-horizon 1.96.
 */
export function obrienFlemingSpent(t: number, alpha: number): number {
  if (!(t > 0)) return 0;
  if (t >= 1) return alpha;
  return 4 * normalTail(upperQuantile(alpha / 4) / Math.sqrt(t));
}

/** Grid points per look (odd, for Simpson's rule); checked against a 401-point grid in the tests. */
const GRID_POINTS = 49;
/** A spending increment below this is no budget: the look cannot reject. */
const NO_BUDGET = 1e-13;
/** |Z| beyond this is never reached in practice: the boundary of a look with no budget. */
export const NO_BOUNDARY = Infinity;

/**
 * The Gaussian kernel's weight (its peak is 1) below which the convolution stops walking out: about
 * 9.6 standard deviations. What is left out is below 1e-20 of the nearest term, far under the grid's
 * own error, and a row adds about 40 terms instead of the whole grid.
 */
const KERNEL_FLOOR = 1e-20;

/**
 * How close a boundary's crossing probability comes to its budget, relative to the budget. Far below
 * the grid's own error (a boundary within 1e-3 of a 401-point grid's, in the tests): 1e-8 of the
 * budget moves a boundary by about 1e-8 on the Z scale.
 */
const CROSSING_TOLERANCE = 1e-8;
/** Steps (in standard deviations of the look's increment) small enough to land within that tolerance. */
const HALLEY_LANDS = 1e-3;
const NEWTON_LANDS = 1e-5;

/** At most this many grid points a look (a long plan of daily looks needs the most). */
const MAX_GRID_POINTS = 801;

/**
 * A look must add at least this share of the information so far: a day with no visitors (a paused
 * test) or next to none adds nothing the grid can resolve (a step of sd √(0.01 I) is still spanned by
 * about 25 points of an 801-point grid at |Z| ≤ 5), so it is no look: it spends nothing, and its data
 * joins the next look.
 */
export const MIN_INFO_GROWTH = 0.01;

/** An odd Simpson grid on [−b, b] of at least `minPoints`, spaced at most `maxSpacing`: its points and spacing. */
function simpsonGrid(
  b: number,
  minPoints: number,
  maxSpacing: number,
): { points: Float64Array; spacing: number } {
  let n = Math.max(
    minPoints,
    Number.isFinite(maxSpacing) && maxSpacing > 0 ? Math.ceil((2 * b) / maxSpacing) + 1 : 0,
  );
  n = Math.min(MAX_GRID_POINTS, n % 2 === 1 ? n : n + 1);
  const h = (2 * b) / (n - 1);
  const points = new Float64Array(n);
  for (let i = 0; i < n; i++) points[i] = i === (n - 1) / 2 ? 0 : -b + i * h;
  return { points, spacing: h };
}

/** Simpson's weight of point i of an n-point grid spaced h: h/3 × 1, 4, 2, 4, …, 2, 4, 1. */
function simpsonWeight(i: number, n: number, h: number): number {
  return ((i === 0 || i === n - 1 ? 1 : i % 2 === 1 ? 4 : 2) * h) / 3;
}

/**
 * The boundaries of a two-sided group sequential test, one look at a time (so a projection can go on
 * from the looks seen). Exact recursive numerical integration (Armitage, McPherson and Rowe; Jennison
 * and Turnbull ch. 19): at each look the boundary c is solved so that the probability of first
 * crossing there, under H0, equals the budget spent since the previous look.
 */
export class SequentialBoundaries {
  readonly alpha: number;
  /** Information and budget spent at the last look. */
  private info = 0;
  private spentSoFar = 0;
  /** Continuation-region grid on the S scale, with Simpson weights × density (so Σ = P(no call yet)). */
  private points: Float64Array = new Float64Array(0);
  private mass: Float64Array = new Float64Array(0);
  private looks = 0;
  /** The last two finite boundaries (Z scale) and the information they were found at: the next search starts from them. */
  private lastBoundary = Infinity;
  private lastBoundaryInfo = 0;
  private previousBoundary = Infinity;
  private previousBoundaryInfo = 0;

  /** Points of each look's grid (odd); the default is checked against a 401-point grid in the tests. */
  private readonly gridPoints: number;

  constructor(alpha: number, gridPoints = GRID_POINTS) {
    this.alpha = alpha;
    this.gridPoints = gridPoints % 2 === 1 ? gridPoints : gridPoints + 1;
  }

  /** The budget spent through the last look (0..alpha). */
  get spent(): number {
    return this.spentSoFar;
  }

  /** Information of the last look (0 before any). */
  get information(): number {
    return this.info;
  }

  /**
   * Whether a look at `info` adds enough information to be one (see MIN_INFO_GROWTH); the plan's final
   * look (`final`: it spends what is left) needs a tenth of it, so a long plan's last day is still a
   * look (a 365-day plan's days add 0.27%).
   */
  grows(info: number, final = false): boolean {
    const growth = final ? MIN_INFO_GROWTH / 10 : MIN_INFO_GROWTH;
    return info > 0 && (this.looks === 0 || info >= this.info * (1 + growth));
  }

  /** A copy to project from without changing this one. */
  clone(): SequentialBoundaries {
    const copy = new SequentialBoundaries(this.alpha, this.gridPoints);
    copy.info = this.info;
    copy.spentSoFar = this.spentSoFar;
    copy.points = this.points;
    copy.mass = this.mass;
    copy.looks = this.looks;
    copy.lastBoundary = this.lastBoundary;
    copy.lastBoundaryInfo = this.lastBoundaryInfo;
    copy.previousBoundary = this.previousBoundary;
    copy.previousBoundaryInfo = this.previousBoundaryInfo;
    return copy;
  }

  /**
   * Adds a look at information `info` where the cumulative budget may reach `spendTo` (≤ alpha);
   * returns its boundary on the Z scale (Infinity when nothing is left to spend). A look that does not
   * grow the information enough (`grows`) is none: nothing changes and nothing is spent.
   */
  look(info: number, spendTo: number): number {
    if (!this.grows(info, spendTo >= this.alpha)) return NO_BOUNDARY;
    const target = Math.min(Math.max(spendTo, this.spentSoFar), this.alpha);
    const increment = target - this.spentSoFar;
    // The whole budget is spent: no later look can reject, and the density is no longer needed.
    if (this.looks > 0 && this.alpha - this.spentSoFar <= NO_BUDGET) {
      this.looks += 1;
      this.info = info;
      return NO_BOUNDARY;
    }
    const sqrtInfo = Math.sqrt(info);
    if (this.looks === 0) {
      // First look: S ~ N(0, I) exactly.
      const c = increment > NO_BUDGET ? upperQuantile(increment / 2) : NO_BOUNDARY;
      const b = Number.isFinite(c) ? c * sqrtInfo : 9 * sqrtInfo;
      const { points, spacing } = simpsonGrid(b, this.gridPoints, Infinity);
      const n = points.length;
      this.points = points;
      this.mass = points.map(
        (s, i) => simpsonWeight(i, n, spacing) * (normalDensity(s / sqrtInfo) / sqrtInfo),
      );
      this.finish(info, increment > NO_BUDGET ? target : this.spentSoFar);
      this.remember(c, info);
      return c;
    }
    const sd = Math.sqrt(info - this.info);
    let b: number;
    let c: number;
    if (increment > NO_BUDGET) {
      b = this.solveBoundary(increment, sd, sqrtInfo);
      c = b / sqrtInfo;
    } else {
      // No budget to spend: nothing is cut off, and S (variance at most I) lies within ±9 √I.
      c = NO_BOUNDARY;
      b = 9 * sqrtInfo;
    }
    this.convolve(b, sd);
    this.finish(info, increment > NO_BUDGET ? target : this.spentSoFar);
    this.remember(c, info);
    return c;
  }

  private remember(c: number, info: number): void {
    if (!Number.isFinite(c)) return;
    this.previousBoundary = this.lastBoundary;
    this.previousBoundaryInfo = this.lastBoundaryInfo;
    this.lastBoundary = c;
    this.lastBoundaryInfo = info;
  }

  private finish(info: number, spent: number): void {
    this.info = info;
    this.spentSoFar = spent;
    this.looks += 1;
  }

  /**
   * The density on the new look's continuation region [−b, b]: the old grid's mass moved by a normal
   * step of `sd`. The grid is spaced at most sd / 2 (the next step is about as large), so the narrow
   * steps of many daily looks stay resolved. The Gaussian kernel along a row comes from a recurrence
   * (two multiplications a term, no exp), and the density is symmetric, so half of it is computed.
   */
  private convolve(b: number, sd: number): void {
    const old = this.points;
    const oldMass = this.mass;
    const { points, spacing: h } = simpsonGrid(b, this.gridPoints, sd / 2);
    const n = points.length;
    const mass = new Float64Array(n);
    const spacing = old.length > 1 ? (old[1] ?? 0) - (old[0] ?? 0) : 1;
    const a = spacing / sd;
    const q = Math.exp(-a * a);
    const first = old[0] ?? 0;
    const norm = 1 / (sd * SQRT_2PI);
    const mid = (n - 1) / 2;
    for (let i = 0; i <= mid; i++) {
      const s = points[i] ?? 0;
      // Start at the old point nearest s (where the kernel is largest) and walk out both ways.
      const start = Math.min(old.length - 1, Math.max(0, Math.round((s - first) / spacing)));
      const z0 = (s - (old[start] ?? 0)) / sd;
      let sum = 0;
      // Rightwards: u grows, z = (s − u)/sd falls by a each step.
      const peak = Math.exp(-0.5 * z0 * z0);
      let e = peak;
      let r = Math.exp(a * z0 - 0.5 * a * a);
      for (let j = start; j < old.length; j++) {
        sum += (oldMass[j] ?? 0) * e;
        e *= r;
        r *= q;
        if (e < KERNEL_FLOOR) break;
      }
      // Leftwards: z rises by a each step.
      e = peak;
      r = Math.exp(-a * z0 - 0.5 * a * a);
      for (let j = start - 1; j >= 0; j--) {
        e *= r;
        r *= q;
        sum += (oldMass[j] ?? 0) * e;
        if (e < KERNEL_FLOOR) break;
      }
      const value = simpsonWeight(i, n, h) * sum * norm;
      mass[i] = value;
      mass[n - 1 - i] = value;
    }
    this.points = points;
    this.mass = mass;
  }

  /**
   * The b (S scale) whose first-crossing probability from the current grid is `increment`: Halley steps
   * (the crossing probability's first two derivatives come with it at no extra cost) from a guess
   * extrapolated from the last two boundaries, kept inside the bracket the iterations have found
   * (bisection when a step leaves it). Two or three evaluations a look.
   */
  private solveBoundary(increment: number, sd: number, sqrtInfo: number): number {
    const { points, mass } = this;
    const first = points[0] ?? 0;
    const spacing = points.length > 1 ? (points[1] ?? 0) - first : 1;
    // P(|S_k| ≥ b, no earlier crossing) = Σ mass · [Q((b − u)/sd) + Q((b + u)/sd)] = 2 Σ mass · Q((b − u)/sd)
    // by symmetry. The mass is at most 1, so points more than `reach` sd below b, whose tails are under
    // 1e-12 of the budget, cannot matter: only the points within it are summed (the grid is even: the
    // first is found directly).
    const reach = Math.min(8.5, upperQuantile(increment * 1e-12));
    const crossing = (b: number): { value: number; slope: number; curvature: number } => {
      let value = 0;
      let slope = 0;
      let curvature = 0;
      const from = Math.max(0, Math.floor((b - reach * sd - first) / spacing) - 1);
      for (let j = from; j < points.length; j++) {
        const z = (b - (points[j] ?? 0)) / sd;
        if (z > reach) continue;
        const m = mass[j] ?? 0;
        const density = m * normalDensity(z);
        value += m * normalTail(z);
        slope -= density;
        curvature += density * z;
      }
      return { value: 2 * value, slope: (2 * slope) / sd, curvature: (2 * curvature) / (sd * sd) };
    };
    let low = 0;
    let high = Infinity;
    let b = this.firstGuess(increment, sqrtInfo);
    for (let iteration = 0; iteration < 80; iteration++) {
      const { value, slope, curvature } = crossing(b);
      const error = value - increment;
      if (Math.abs(error) <= increment * CROSSING_TOLERANCE) break;
      if (error > 0) low = b;
      else high = b;
      const newton = slope < 0 ? error / slope : Number.NaN;
      const halley = 1 - (newton * curvature) / (2 * slope);
      const cubic = halley > 0.5 && halley < 2;
      let next = b - (cubic ? newton / halley : newton);
      // A step past |Z| = 40 is no boundary (where the crossing probability is flat, as when the
      // information barely grew, a step can fly off): bisect, or widen from b while nothing bounds it.
      const stepped = next > low && next < high && next < 40 * sqrtInfo;
      if (!stepped) next = Number.isFinite(high) ? (low + high) / 2 : b * 1.5 + sd;
      // A step this small lands close enough to the root to take it without evaluating again: a Halley
      // step of δ·sd within about 10·δ³·sd (its error is cubic, the constant near (z/sd)²), a Newton
      // step within δ²·sd.
      const small = Math.abs(next - b) / sd <= (cubic ? HALLEY_LANDS : NEWTON_LANDS);
      if ((stepped && small) || Math.abs(next - b) <= 1e-10 * sqrtInfo) {
        b = next;
        break;
      }
      b = next;
    }
    return b;
  }

  /**
   * Where the search for a look's boundary starts (S scale): the boundaries move smoothly from look to
   * look, so the line through the last two (on the Z scale, against information) lands close; the last
   * one alone after a single look; the fixed-sample quantile of the increment before any.
   */
  private firstGuess(increment: number, sqrtInfo: number): number {
    const info = sqrtInfo * sqrtInfo;
    if (!Number.isFinite(this.lastBoundary))
      return upperQuantile(Math.min(increment, 0.5) / 2) * sqrtInfo;
    let c = this.lastBoundary;
    if (
      Number.isFinite(this.previousBoundary) &&
      this.lastBoundaryInfo > this.previousBoundaryInfo
    ) {
      const slope =
        (c - this.previousBoundary) / (this.lastBoundaryInfo - this.previousBoundaryInfo);
      const extrapolated = c + slope * (info - this.lastBoundaryInfo);
      if (extrapolated > 0.8 * c && extrapolated < 1.2 * c) c = extrapolated;
    }
    return c * sqrtInfo;
  }
}

/**
 * The normal-mixture confidence sequence (Robbins; Howard et al. 2021, as GrowthBook uses it):
 * with an estimate of variance v, the interval estimate ± halfWidth is valid at every sample size at
 * once. `tau2` is the mixing variance: the sequence is tightest where v is near tau2 / (−2 ln α +
 * ln(1 − 2 ln α)), which is how `mixtureTuning` places it.
 */
export function mixtureHalfWidth(variance: number, tau2: number, alpha: number): number {
  if (!(alpha > 0) || !(variance > 0) || !(tau2 > 0)) return Infinity;
  const ratio = tau2 / variance;
  return Math.sqrt(variance * (1 + 1 / ratio) * (2 * Math.log(1 / alpha) + Math.log(1 + ratio)));
}

/** The mixing variance that makes the sequence tightest at the estimate variance `targetVariance`. */
export function mixtureTuning(targetVariance: number, alpha: number): number {
  const l = -2 * Math.log(alpha);
  return targetVariance * (l + Math.log(1 + l));
}

/** Information (1 / variance of the estimate) a two-sided test needs to detect `effect` with `power`. */
export function informationFor(
  effect: number,
  alpha: number,
  power: number,
  finalBoundary?: number,
): number {
  const zAlpha = finalBoundary ?? upperQuantile(alpha / 2);
  const zBeta = upperQuantile(1 - power);
  return ((zAlpha + zBeta) / effect) ** 2;
}
