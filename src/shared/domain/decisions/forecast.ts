// What the figures say beyond the call: the odds beside it, the chance of a call by a day (predictive
// power), whether a call can still come at all (conditional power), and the lift at a call adjusted
// for having stopped at the first crossing (the median-unbiased estimate).
import { continuation, ForwardWalk, type ForwardLook, type Interval } from './forward';
import { normalCdf, normalTail, upperQuantile } from './sequential';

/**
 * The prior the forecast averages over, a programme of tests as they come: half change nothing (the
 * lift is exactly zero), a third have a small true lift (log scale ~ N(0, 5%²)) and the rest a large one
 * (~ N(0, 20%²)); the heavy tail keeps a big early effect from being shrunk to a small one. Checked by
 * simulation on such a programme: among tests told p%, the share with a call by then is p within a few
 * points (docs/decisions.md, which also says why no forecast can be calibrated on A/A tests alone).
 */
export const FORECAST_PRIOR: readonly { share: number; sd: number }[] = [
  { share: 0.5, sd: 0 },
  { share: 0.35, sd: 0.05 },
  { share: 0.15, sd: 0.2 },
];

/** Conditional power under which a call is out of reach: cannot conclude. */
export const HOPELESS_POWER = 0.1;

/** P(lift > +δ), P(lift < −δ) and the expected loss of shipping, from θ ~ N(theta, variance) on the log scale. */
export function oddsOf(theta: number, variance: number, minEffect: number): { better: number; worse: number; risk: number } {
  const sd = Math.sqrt(variance);
  const up = Math.log1p(minEffect);
  const down = Math.log1p(-minEffect);
  // E[(1 − e^θ)⁺] = Φ(−m/s) − e^{m + s²/2} Φ(−m/s − s).
  const risk = normalCdf(-theta / sd) - Math.exp(theta + variance / 2) * normalCdf(-theta / sd - sd);
  return { better: normalTail((up - theta) / sd), worse: normalCdf((down - theta) / sd), risk: Math.max(0, risk) };
}

/** A future (or past) look as the walks need it: information on the estimate's scale, boundary, and whether all of it stops there. */
export type PlannedLook = {
  day: number;
  /** 1 / Var of the estimate at the look. */
  info: number;
  /** |Z| needed (normal scale); Infinity when no budget is left. */
  boundary: number;
  /** The equivalence band on the log scale (lift within ±δ). */
  band: Interval;
  /** The plan's final look with the sample for 80% power: no difference if nothing else, so every path stops. */
  settlesAll: boolean;
};

/** The S-scale hole of a look: the scores whose interval θ ± c/√I lies inside the band. */
export function equivalenceHole(info: number, boundary: number, band: Interval): Interval | null {
  if (!Number.isFinite(boundary)) return null;
  const low = info * band.low + boundary * Math.sqrt(info);
  const high = info * band.high - boundary * Math.sqrt(info);
  return high > low ? { low, high } : null;
}

function forwardLooks(looks: readonly PlannedLook[]): ForwardLook[] {
  return looks.map((look) => ({
    info: look.info,
    keep: look.settlesAll ? [] : continuation(look.info, look.boundary, equivalenceHole(look.info, look.boundary, look.band)),
  }));
}

/**
 * The chance of a call by each look (cumulative), from the score `start` at information `info`:
 * predictive power under FORECAST_PRIOR, the effect averaged over its posterior given the data so far.
 * Each part of the prior gives its own walk (no effect: a fixed zero drift; N(0, τ²): the predictive
 * motion), weighted by how well it explains the score (S ~ N(0, I + τ²I²) under it).
 */
export function predictiveChances(start: number, info: number, looks: readonly PlannedLook[]): number[] {
  const parts = FORECAST_PRIOR.map((part) => {
    const variance = info + part.sd * part.sd * info * info;
    const logLikelihood = variance > 0 ? -0.5 * Math.log(variance) - (start * start) / (2 * variance) : 0;
    return { part, logWeight: Math.log(part.share) + logLikelihood };
  });
  const top = Math.max(...parts.map((p) => p.logWeight));
  const total = parts.reduce((sum, p) => sum + Math.exp(p.logWeight - top), 0);
  const forward = forwardLooks(looks);
  const walks = parts
    .map(({ part, logWeight }) => ({
      weight: Math.exp(logWeight - top) / total,
      walk: new ForwardWalk(start, info, part.sd === 0 ? { kind: 'fixed', eta: 0 } : { kind: 'predictive', priorPrecision: 1 / (part.sd * part.sd) }),
    }))
    .filter((w) => w.weight > 1e-6);
  return forward.map((look) => walks.reduce((sum, { weight, walk }) => sum + weight * (1 - walk.step(look.info, look.keep)), 0));
}

/**
 * Conditional power at a horizon: the chance that |Z| reaches `boundary` at information `horizonInfo`
 * from the score `start` at `info` if the true effect (log scale) is `theta`. A fixed-horizon reading of
 * the last look, which leaves out crossings on the way (slightly low for boundaries that fall over time).
 */
export function conditionalPower(start: number, info: number, theta: number, horizonInfo: number, boundary: number): number {
  if (!(horizonInfo > info)) return Math.abs(start) / Math.sqrt(Math.max(info, 1e-300)) >= boundary ? 1 : 0;
  const mean = (start + theta * (horizonInfo - info)) / Math.sqrt(horizonInfo);
  const sd = Math.sqrt((horizonInfo - info) / horizonInfo);
  return normalTail((boundary - mean) / sd) + normalCdf((-boundary - mean) / sd);
}

/** The smallest lift (relative) a look at `info` with final boundary c detects with `power`. */
export function detectableLift(info: number, boundary: number, power: number): number | null {
  if (!(info > 0) || !Number.isFinite(boundary)) return null;
  return Math.expm1((boundary + upperQuantile(1 - power)) / Math.sqrt(info));
}

/** A look the call's path went through, for the adjusted estimate: information and the region where it went on. */
export type PastLook = { info: number; boundary: number; hole: Interval | null };

/**
 * The median-unbiased estimate of the effect (log scale, on the information's scale) at a call made by
 * an upward crossing at the last of `looks` with score `score` there: the η at which the chance of an
 * outcome at least as extreme in the stage-wise ordering (an upward crossing at an earlier look, or at
 * this one with a score at least this high) is one half. Found by regula falsi (Illinois) to 1% of a
 * standard error.
 */
export function medianUnbiased(looks: readonly PastLook[], score: number): number {
  const last = looks[looks.length - 1];
  if (last === undefined) return Number.NaN;
  const se = 1 / Math.sqrt(last.info);
  const naive = score / last.info;
  const extreme = (eta: number): number => {
    // A coarser grid than the forecast's: the estimate is wanted to a hundredth of a standard error.
    const walk = new ForwardWalk(0, 0, { kind: 'fixed', eta }, 1);
    let total = 0;
    for (let k = 0; k < looks.length - 1; k++) {
      const look = looks[k];
      if (look === undefined) continue;
      const edge = Number.isFinite(look.boundary) ? look.boundary * Math.sqrt(look.info) : Infinity;
      if (Number.isFinite(edge)) total += walk.above(look.info, edge);
      walk.step(look.info, continuation(look.info, look.boundary, look.hole));
    }
    return total + walk.above(last.info, score);
  };
  // p(η) rises with η; the root lies below the naive estimate (stopping early favours high scores).
  let low = naive - 2.5 * se;
  let high = naive + 0.5 * se;
  let pLow = extreme(low) - 0.5;
  let pHigh = extreme(high) - 0.5;
  if (pLow > 0 || pHigh < 0) return naive;
  let side = 0;
  let eta = naive;
  for (let iteration = 0; iteration < 30; iteration++) {
    eta = (low * pHigh - high * pLow) / (pHigh - pLow);
    const p = extreme(eta) - 0.5;
    if (Math.abs(p) < 2e-3 || Math.abs(high - low) < 0.02 * se) break;
    if (p > 0) {
      high = eta;
      pHigh = p;
      if (side === 1) pLow /= 2;
      side = 1;
    } else {
      low = eta;
      pLow = p;
      if (side === -1) pHigh /= 2;
      side = -1;
    }
  }
  return eta;
}
