// Simulated tests like a store's, read the way a consultant syncing every morning reads them: how
// often the call is wrong on A/A tests, how many true effects it finds beside a fixed-horizon test
// read once on day 28, and how honest its other words are (cannot conclude, the forecast's odds).
// Shared by the CI tests (a fixed seed) and `npm run bench -- decisions` (larger runs).
//
// A trial: 300–3,000 visitors a side a day (log-uniform), uneven days (a weekly cycle of ±25% and ±20%
// noise), split at random as an assignment does; a conversion rate of 1–5%; each visitor converts or
// not (binomial), each order has a value drawn from a lognormal of the chosen log-sd (mean 50), so the
// daily totals are exactly what a store's API would send and a visitor-level test can be run on the
// same visitors. Paused days are rows of zeros. Effects act on the conversion rate and on the order
// value separately (so a goal can win while revenue falls), optionally only in the first week.
import {
  decideTest,
  DEFAULT_DECISION_SETTINGS,
  mixtureHalfWidth,
  upperQuantile,
  type Decision,
  type DecisionSettings,
} from '#shared/domain/decisions/index';
import { analyseBinary } from '#shared/domain/statistics/index';
import { resultsOf, side, testOf, type DayCounts } from './support';

/** mulberry32: a small seeded generator, so a run is the same everywhere. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const FIRST_CHECK = 7;
export const LAST_CHECK = 28;

export type GoalName = 'conversion-rate' | 'revenue-per-visitor' | 'average-order-value';

export type Scenario = {
  goal: GoalName;
  /** Relative change of the conversion rate on the variant (0.12 = +12%). */
  conversionLift?: number;
  /** Relative change of the mean order value on the variant. */
  valueLift?: number;
  /** The effects last only through this day (a novelty that fades), then vanish. */
  effectDays?: number;
  /** Log-sd of order values (lognormal, mean 50); 0 for every order worth 50. */
  sigma?: number;
  /** Days with no traffic at all (rows of zeros), placed at random on days 8–25. */
  pausedDays?: number;
  /** Visitors a side a day, fixed (else 300–3,000 log-uniform). */
  perDay?: number;
  /** Conversion rate, fixed (else 1–5%). */
  rate?: number;
  /** Draw the conversion lift per trial from a mixture: part k with its share, log-lift ~ N(0, sd²) (sd 0: none). */
  drawn?: readonly { share: number; sd: number }[];
};

export type Trial = {
  scenario: Scenario;
  days: DayCounts[];
  /** Per side over all days: Σ revenue² of single orders, for the visitor-level test. */
  squares: { control: number; variant: number };
};

function drawnSd(random: () => number, parts: readonly { share: number; sd: number }[]): number {
  let u = random();
  for (const part of parts) {
    if (u < part.share) return part.sd;
    u -= part.share;
  }
  return parts[parts.length - 1]?.sd ?? 0;
}

function gauss(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Binomial(n, p): exact for small means, normal beyond (as counts this large are). */
function binomial(random: () => number, n: number, p: number): number {
  if (n * p > 40 && n * (1 - p) > 40) return Math.min(n, Math.max(0, Math.round(n * p + Math.sqrt(n * p * (1 - p)) * gauss(random))));
  let c = 0;
  for (let i = 0; i < n; i++) if (random() < p) c++;
  return c;
}

export function trialOf(random: () => number, given: Scenario): Trial {
  const scenario: Scenario =
    given.drawn === undefined
      ? given
      : { ...given, conversionLift: Math.expm1(drawnSd(random, given.drawn) * gauss(random)) };
  const perDay = scenario.perDay ?? Math.round(300 * Math.exp(random() * Math.log(10)));
  const rate = scenario.rate ?? 0.01 + random() * 0.04;
  const sigma = scenario.sigma ?? 0;
  const mu = Math.log(50) - (sigma * sigma) / 2;
  const paused = new Set<number>();
  while (paused.size < (scenario.pausedDays ?? 0)) paused.add(7 + Math.floor(random() * 18));
  const phase = random() * 7;
  const days: DayCounts[] = [];
  const squares = { control: 0, variant: 0 };
  const sideOf = (visitors: number, p: number, valueFactor: number, key: 'control' | 'variant') => {
    const orders = binomial(random, visitors, Math.min(1, p));
    let revenue = 0;
    for (let i = 0; i < orders; i++) {
      const value = sigma > 0 ? Math.exp(mu + sigma * gauss(random)) * valueFactor : 50 * valueFactor;
      revenue += value;
      squares[key] += value * value;
    }
    return { visitors, conversions: orders, orders, revenue, carts: Math.min(visitors, orders * 3), clicks: Math.min(visitors, orders * 5) };
  };
  for (let d = 0; d < LAST_CHECK; d++) {
    if (paused.has(d)) {
      days.push({ control: { visitors: 0, conversions: 0, revenue: 0 }, variant: { visitors: 0, conversions: 0, revenue: 0 } });
      continue;
    }
    const weekly = 1 + 0.25 * Math.sin((2 * Math.PI * (d + phase)) / 7);
    const total = Math.max(2, Math.round(2 * perDay * weekly * (0.8 + 0.4 * random())));
    const a = Math.min(total - 1, Math.max(1, binomial(random, total, 0.5)));
    const on = scenario.effectDays === undefined || d < scenario.effectDays;
    const conversionLift = on ? (scenario.conversionLift ?? 0) : 0;
    const valueLift = on ? (scenario.valueLift ?? 0) : 0;
    days.push({
      control: sideOf(a, rate, 1, 'control'),
      variant: sideOf(total - a, rate * (1 + conversionLift), 1 + valueLift, 'variant'),
    });
  }
  return { scenario, days, squares };
}

const TODAY: DayCounts = { control: { visitors: 0, conversions: 0, revenue: 0 }, variant: { visitors: 0, conversions: 0, revenue: 0 } };

const RUNNING = testOf({ status: 'active', endAt: null, startAt: '2026-05-01T00:00:00Z', automaticallyEndAt: null });
const TESTS: Record<GoalName, ReturnType<typeof testOf>> = {
  'conversion-rate': RUNNING,
  'revenue-per-visitor': { ...RUNNING, goal: 'revenue-per-visitor' },
  'average-order-value': { ...RUNNING, goal: 'average-order-value' },
};

/** The call a consultant reads in the morning after `day` completed days (today's, still empty, is the last). */
export function callOn(trial: Trial, day: number, settings: DecisionSettings = DEFAULT_DECISION_SETTINGS): Decision {
  const results = resultsOf([...trial.days.slice(0, day), TODAY]);
  const decision = decideTest({ test: TESTS[trial.scenario.goal], results, settings });
  if (decision === null) throw new Error('no decision');
  return decision;
}

export type Side = 'ship' | 'keep_control' | null;

/** The true side of a trial's goal: ship for a better variant, keep the control for a worse, null for none. */
export function truthOf(scenario: Scenario): Side {
  const c = 1 + (scenario.conversionLift ?? 0);
  const v = 1 + (scenario.valueLift ?? 0);
  const goal = scenario.goal === 'conversion-rate' ? c : scenario.goal === 'average-order-value' ? v : c * v;
  if (scenario.effectDays !== undefined) return null;
  return goal > 1 + 1e-9 ? 'ship' : goal < 1 - 1e-9 ? 'keep_control' : null;
}

/** A fixed-horizon two-sided test at 95% of the goal on every day's data, read once on day 28. */
export function fixedHorizon(trial: Trial): Side {
  let a = { n: 0, o: 0, r: 0 };
  let b = { n: 0, o: 0, r: 0 };
  for (const day of trial.days) {
    a = { n: a.n + day.control.visitors, o: a.o + day.control.conversions, r: a.r + (day.control.revenue ?? 0) };
    b = { n: b.n + day.variant.visitors, o: b.o + day.variant.conversions, r: b.r + (day.variant.revenue ?? 0) };
  }
  let z: number;
  if (trial.scenario.goal === 'conversion-rate') {
    if (a.o === 0 || b.o === 0) return null;
    const pa = a.o / a.n;
    const pb = b.o / b.n;
    z = Math.log(pb / pa) / Math.sqrt((1 - pa) / a.o + (1 - pb) / b.o);
  } else if (trial.scenario.goal === 'revenue-per-visitor') {
    // Welch on each visitor's revenue: what a tool with visitor-level data would run.
    const va = (trial.squares.control / a.n - (a.r / a.n) ** 2) / a.n;
    const vb = (trial.squares.variant / b.n - (b.r / b.n) ** 2) / b.n;
    z = (b.r / b.n - a.r / a.n) / Math.sqrt(va + vb);
  } else {
    if (a.o < 2 || b.o < 2) return null;
    const ma = a.r / a.o;
    const mb = b.r / b.o;
    z = (mb - ma) / Math.sqrt((trial.squares.control / a.o - ma * ma) / a.o + (trial.squares.variant / b.o - mb * mb) / b.o);
  }
  if (!Number.isFinite(z) || Math.abs(z) < upperQuantile(0.025)) return null;
  return z > 0 ? 'ship' : 'keep_control';
}

/** Splitbook's chance to win read daily and acted on at 95% (or 5%): what a reader without a rule does. */
export function peeking(trial: Trial): Side {
  let a = { visitors: 0, conversions: 0 };
  let b = { visitors: 0, conversions: 0 };
  for (let d = 0; d < LAST_CHECK; d++) {
    const day = trial.days[d];
    if (day === undefined) continue;
    a = { visitors: a.visitors + day.control.visitors, conversions: a.conversions + day.control.conversions };
    b = { visitors: b.visitors + day.variant.visitors, conversions: b.conversions + day.variant.conversions };
    if (d + 1 < FIRST_CHECK || a.conversions === 0 || b.conversions === 0) continue;
    const bayes = analyseBinary(side(a), side(b), 'cvr');
    if (bayes !== null && (bayes.pWin >= 0.95 || bayes.pWin <= 0.05)) return bayes.pWin > 0.5 ? 'ship' : 'keep_control';
  }
  return null;
}

/** GrowthBook's default always-valid interval (tightest at 5,000 visitors in all), read daily. */
export function alwaysValid(trial: Trial): Side {
  let ca = 0;
  let na = 0;
  let cb = 0;
  let nb = 0;
  const l = -2 * Math.log(0.05);
  const rho2 = (l + Math.log(1 + l)) / 5000;
  for (let d = 0; d < LAST_CHECK; d++) {
    const day = trial.days[d];
    if (day === undefined) continue;
    ca += day.control.conversions;
    na += day.control.visitors;
    cb += day.variant.conversions;
    nb += day.variant.visitors;
    if (d + 1 < FIRST_CHECK || ca === 0 || cb === 0) continue;
    const pa = ca / na;
    const pb = cb / nb;
    const variance = (1 - pa) / ca + (1 - pb) / cb;
    const theta = Math.log(pb / pa);
    const half = mixtureHalfWidth(variance, variance * (na + nb) * rho2, 0.05);
    if (Math.abs(theta) >= half) return theta > 0 ? 'ship' : 'keep_control';
  }
  return null;
}

/** Each day's call from day 7 to 28, and the day it first concluded (ship, keep the control, no difference). */
export type Reading = { calls: Decision[]; concluded: { call: string; day: number } | null };

const CONCLUSIVE = new Set(['ship', 'keep_control', 'no_difference']);

/** Reads a trial every morning from day 7 to day 28 (`everyDay`), or only on day 28 (the same outcome: a call once made stays made). */
export function readTrial(trial: Trial, everyDay: boolean, settings?: DecisionSettings): Reading {
  const calls: Decision[] = [];
  for (let d = everyDay ? FIRST_CHECK : LAST_CHECK; d <= LAST_CHECK; d++) calls.push(callOn(trial, d, settings));
  const last = calls[calls.length - 1];
  const concluded = last !== undefined && CONCLUSIVE.has(last.call) && last.look !== null ? { call: last.call, day: last.look.day } : null;
  return { calls, concluded };
}

export type Tally = {
  tests: number;
  /** Calls on the true side by day 28 (for A/A: none), and on the wrong side (for A/A: any ship or keep the control). */
  right: number;
  wrong: number;
  noDifference: number;
  fixed: { right: number; wrong: number };
  peeking: { right: number; wrong: number };
  alwaysValid: { right: number; wrong: number };
};

/** Runs `count` trials of a scenario and counts each way's calls by day 28 (reading the decision once: it re-walks every look). */
export function tally(random: () => number, count: number, scenarios: readonly Scenario[], settings?: DecisionSettings): Tally {
  const result: Tally = { tests: 0, right: 0, wrong: 0, noDifference: 0, fixed: { right: 0, wrong: 0 }, peeking: { right: 0, wrong: 0 }, alwaysValid: { right: 0, wrong: 0 } };
  for (let i = 0; i < count; i++) {
    const scenario = scenarios[i % scenarios.length];
    if (scenario === undefined) continue;
    const trial = trialOf(random, scenario);
    const truth = truthOf(scenario);
    const count = (call: Side, into: { right: number; wrong: number }) => {
      if (call === null) return;
      if (call === truth) into.right += 1;
      else into.wrong += 1;
    };
    result.tests += 1;
    const decision = callOn(trial, LAST_CHECK, settings);
    const call = decision.call === 'ship' || decision.call === 'keep_control' ? decision.call : null;
    if (decision.call === 'no_difference') result.noDifference += 1;
    if (call !== null) {
      if (call === truth) result.right += 1;
      else result.wrong += 1;
    }
    count(fixedHorizon(trial), result.fixed);
    if (scenario.goal === 'conversion-rate') {
      count(peeking(trial), result.peeking);
      count(alwaysValid(trial), result.alwaysValid);
    }
  }
  return result;
}

/**
 * The forecast's calibration: each trial read on `day`; where the call is keep running with a forecast
 * of p% by day N, whether it had concluded by day N. Returned per decile of p: the mean p told and the
 * share that had a call.
 */
export type Calibration = { told: number; happened: number; tests: number }[];

export function calibration(random: () => number, count: number, scenarios: readonly Scenario[], days: readonly number[]): { bins: Calibration; forecasts: number } {
  const bins: Calibration = Array.from({ length: 10 }, () => ({ told: 0, happened: 0, tests: 0 }));
  let forecasts = 0;
  for (let i = 0; i < count; i++) {
    const scenario = scenarios[i % scenarios.length];
    if (scenario === undefined) continue;
    const trial = trialOf(random, scenario);
    for (const day of days) {
      const decision = callOn(trial, day);
      const forecast = decision.forecast;
      if (decision.call !== 'keep_running' || forecast === null) continue;
      const later = callOn(trial, Math.min(LAST_CHECK, forecast.day));
      const happened = CONCLUSIVE.has(later.call) && later.look !== null && later.look.day <= forecast.day;
      const bin = bins[Math.min(9, Math.floor(forecast.chance * 10))];
      if (bin === undefined) continue;
      bin.told += forecast.chance;
      bin.happened += happened ? 1 : 0;
      bin.tests += 1;
      forecasts += 1;
    }
  }
  return { bins, forecasts };
}

/** The largest gap, in points, between the chance told and the share that happened, over bins of at least `least` tests. */
export function worstGap(bins: Calibration, least: number): number {
  let worst = 0;
  for (const bin of bins) {
    if (bin.tests < least) continue;
    worst = Math.max(worst, Math.abs(bin.told / bin.tests - bin.happened / bin.tests) * 100);
  }
  return worst;
}

/**
 * The largest gap beyond sampling error: over bins of at least `least` tests, |told − happened| less
 * 1.645 standard errors of the share that happened, in points. "Within 5 points" means this ≤ 5.
 */
export function worstExcess(bins: Calibration, least: number): number {
  let worst = 0;
  for (const bin of bins) {
    if (bin.tests < least) continue;
    const told = bin.told / bin.tests;
    const happened = bin.happened / bin.tests;
    const error = 1.645 * Math.sqrt((told * (1 - told)) / bin.tests);
    worst = Math.max(worst, (Math.abs(told - happened) - error) * 100);
  }
  return worst;
}

/**
 * The share of true-effect trials first told "cannot conclude" (read daily) that later got the right
 * call, and the share whose first conclusive call was right.
 */
export function cannotConcludeFirst(random: () => number, count: number, scenarios: readonly Scenario[]): { toldFirst: number; thenRight: number; right: number; tests: number } {
  let toldFirst = 0;
  let thenRight = 0;
  let right = 0;
  for (let i = 0; i < count; i++) {
    const scenario = scenarios[i % scenarios.length];
    if (scenario === undefined) continue;
    const trial = trialOf(random, scenario);
    const truth = truthOf(scenario);
    const { calls } = readTrial(trial, true);
    const firstCannot = calls.findIndex((call) => call.call === 'cannot_conclude');
    const firstRight = calls.findIndex((call) => call.call === truth);
    if (firstRight >= 0) right += 1;
    if (firstCannot >= 0 && (firstRight < 0 || firstCannot < firstRight)) {
      toldFirst += 1;
      if (firstRight > firstCannot) thenRight += 1;
    }
  }
  return { toldFirst: toldFirst / count, thenRight: thenRight / count, right: right / count, tests: count };
}
