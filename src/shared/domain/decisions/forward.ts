// Where a test's score goes from a known point: the group sequential score S (estimate × information)
// walked forward look by look, its density kept on the region where no call has been made yet.
// Two uses: the chance of a call by a day (the forecast), with the effect either fixed (conditional
// power) or averaged over what the data so far say of it (predictive power); and the stage-wise
// probability behind the median-unbiased estimate at a call, walked from the first look.
//
// The motion from a look at information I to one at I′ is Gaussian and linear in the score there:
//   fixed effect η (on the score's scale):  S′ | S = s ~ N(s + η·ΔI, ΔI)
//   predictive, effect ~ N(0, 1/p₀) a priori: S′ | S = s ~ N(r·s, r·ΔI), r = (p₀ + I′) / (p₀ + I)
// (the second because, with a normal prior, what the data say of the effect at a look depends on S
// alone: its posterior is N(s / (p₀ + I), 1 / (p₀ + I)), so the score stays a Markov process). The
// density is carried on Simpson grids, one per interval of the region, spaced at most half the step's
// standard deviation, as SequentialBoundaries carries the null density.
import { normalTail } from './sequential';

/** A part of the score's line (S scale) where the walk goes on; either end may be infinite. */
export type Interval = { low: number; high: number };

export type Drift = { kind: 'fixed'; eta: number } | { kind: 'predictive'; priorPrecision: number };

type Segment = { first: number; spacing: number; count: number; mass: Float64Array };

const SQRT_2PI = Math.sqrt(2 * Math.PI);
/** Kernel weights below this (relative to the peak) are left out: about 9.6 sd. */
const KERNEL_FLOOR = 1e-20;
/** How far a density reaches past its mean, in standard deviations, where an interval is unbounded. */
const REACH = 9;
const MIN_POINTS = 9;
const MAX_POINTS = 801;

function simpsonWeight(i: number, n: number, h: number): number {
  return ((i === 0 || i === n - 1 ? 1 : i % 2 === 1 ? 4 : 2) * h) / 3;
}

export class ForwardWalk {
  private info: number;
  /** The score while it is still one known point (before the first step). */
  private point: number | null;
  private segments: Segment[] = [];
  private readonly drift: Drift;

  /** Grid spacing in standard deviations of a step (½ resolves a density to about 1e-4 of its mass). */
  private readonly spacing: number;

  constructor(start: number, info: number, drift: Drift, spacing = 0.5) {
    this.point = start;
    this.info = info;
    this.drift = drift;
    this.spacing = spacing;
  }

  /** The step to information `to`: S′ = a·S + b + noise of sd `sd`. */
  private motion(to: number): { a: number; b: number; sd: number } {
    const step = Math.max(to - this.info, 0);
    if (this.drift.kind === 'fixed') return { a: 1, b: this.drift.eta * step, sd: Math.sqrt(step) };
    const p0 = this.drift.priorPrecision;
    const r = (p0 + to) / (p0 + this.info);
    return { a: r, b: 0, sd: Math.sqrt(r * step) };
  }

  /** The probability still in play (no stop so far). */
  get remaining(): number {
    if (this.point !== null) return 1;
    let total = 0;
    for (const segment of this.segments) for (const m of segment.mass) total += m;
    return total;
  }

  /** P(S at `to` ≥ u, and no stop before): the walk itself does not move. */
  above(to: number, u: number): number {
    const { a, b, sd } = this.motion(to);
    if (!(sd > 0)) return this.massWhere((v) => (v >= u ? 1 : 0), a, b);
    return this.massWhere((v) => normalTail((u - v) / sd), a, b);
  }

  /** P(S at `to` ≤ l, and no stop before). */
  below(to: number, l: number): number {
    const { a, b, sd } = this.motion(to);
    if (!(sd > 0)) return this.massWhere((v) => (v <= l ? 1 : 0), a, b);
    return this.massWhere((v) => normalTail((v - l) / sd), a, b);
  }

  private massWhere(share: (mappedPoint: number) => number, a: number, b: number): number {
    if (this.point !== null) return share(a * this.point + b);
    let total = 0;
    for (const segment of this.segments) {
      for (let i = 0; i < segment.count; i++) {
        const m = segment.mass[i] ?? 0;
        if (m !== 0) total += m * share(a * (segment.first + i * segment.spacing) + b);
      }
    }
    return total;
  }

  /**
   * Moves to information `to`, keeping only the mass inside `keep` (ascending, disjoint intervals):
   * the rest has stopped. Returns the probability still in play.
   */
  step(to: number, keep: readonly Interval[]): number {
    const { a, b, sd } = this.motion(to);
    if (!(sd > 0)) return this.remaining;
    const [lowest, highest] = this.support(a, b);
    const segments: Segment[] = [];
    const budget = Math.max(MIN_POINTS, Math.floor(MAX_POINTS / Math.max(1, keep.length)));
    for (const part of keep) {
      const low = Math.max(part.low, lowest - REACH * sd);
      const high = Math.min(part.high, highest + REACH * sd);
      if (!(high > low)) continue;
      let n = Math.max(MIN_POINTS, Math.ceil((high - low) / (sd * this.spacing)) + 1);
      n = Math.min(budget, n % 2 === 1 ? n : n + 1);
      const h = (high - low) / (n - 1);
      const mass = new Float64Array(n);
      for (let i = 0; i < n; i++) mass[i] = simpsonWeight(i, n, h) * this.density(low + i * h, a, b, sd);
      segments.push({ first: low, spacing: h, count: n, mass });
    }
    this.segments = segments;
    this.point = null;
    this.info = to;
    return this.remaining;
  }

  /** Where the mass lies after the move's mean (before its noise): the lowest and highest mapped points. */
  private support(a: number, b: number): [number, number] {
    if (this.point !== null) return [a * this.point + b, a * this.point + b];
    let lowest = Infinity;
    let highest = -Infinity;
    for (const segment of this.segments) {
      lowest = Math.min(lowest, a * segment.first + b);
      highest = Math.max(highest, a * (segment.first + (segment.count - 1) * segment.spacing) + b);
    }
    return [lowest, highest];
  }

  /** The density at s after the move: Σ mass · φ((s − (a·u + b)) / sd) / sd over the grid points u. */
  private density(s: number, a: number, b: number, sd: number): number {
    const norm = 1 / (sd * SQRT_2PI);
    if (this.point !== null) {
      const z = (s - (a * this.point + b)) / sd;
      return Math.exp(-0.5 * z * z) * norm;
    }
    let sum = 0;
    for (const segment of this.segments) sum += kernelSum(segment, s, a, b, sd);
    return sum * norm;
  }
}

/**
 * Σ mass_i · exp(−z_i²/2), z_i = (s − (a·u_i + b)) / sd, over one uniform segment: from the point
 * nearest s outwards, each term from the last by two multiplications (no exp), stopping where the
 * kernel is negligible.
 */
function kernelSum(segment: Segment, s: number, a: number, b: number, sd: number): number {
  const { first, spacing, count, mass } = segment;
  const start0 = a * first + b;
  const d = a * spacing;
  const delta = d / sd;
  const nearest = d > 0 ? Math.round((s - start0) / d) : 0;
  const j0 = Math.min(count - 1, Math.max(0, nearest));
  const z0 = (s - (start0 + j0 * d)) / sd;
  const peak = Math.exp(-0.5 * z0 * z0);
  const q = Math.exp(-delta * delta);
  let sum = 0;
  // Rightwards z falls by delta each step.
  let e = peak;
  let r = Math.exp(z0 * delta - 0.5 * delta * delta);
  for (let j = j0; j < count; j++) {
    sum += (mass[j] ?? 0) * e;
    e *= r;
    r *= q;
    if (e < KERNEL_FLOOR && j > j0) break;
  }
  e = peak;
  r = Math.exp(-z0 * delta - 0.5 * delta * delta);
  for (let j = j0 - 1; j >= 0; j--) {
    e *= r;
    r *= q;
    sum += (mass[j] ?? 0) * e;
    if (e < KERNEL_FLOOR) break;
  }
  return sum;
}

/** One look the walk passes: its information and the region where no call is made there (S scale). */
export type ForwardLook = { info: number; keep: readonly Interval[] };

/**
 * The chance of a call by each of `looks` (cumulative), walking from score `start` at information
 * `info` with `drift`: 1 − the probability still in play after each look.
 */
export function callChances(start: number, info: number, drift: Drift, looks: readonly ForwardLook[]): number[] {
  const walk = new ForwardWalk(start, info, drift);
  return looks.map((look) => 1 - walk.step(look.info, look.keep));
}

/** The continuation region of a look: |S| < c·√I, less the equivalence band's hole (lo, hi) when it has one. */
export function continuation(info: number, boundary: number, hole: Interval | null): Interval[] {
  const edge = Number.isFinite(boundary) ? boundary * Math.sqrt(info) : Infinity;
  if (hole === null || !(hole.high > hole.low)) return [{ low: -edge, high: edge }];
  const parts: Interval[] = [];
  if (hole.low > -edge) parts.push({ low: -edge, high: Math.min(hole.low, edge) });
  if (hole.high < edge) parts.push({ low: Math.max(hole.high, -edge), high: edge });
  return parts.filter((part) => part.high > part.low);
}
