// Simulated tests like a store's, checked every day: how often each way of making the call is wrong on
// A/A tests, and how many true effects it finds by day 28. Shared by the CI test (a fixed seed, a few
// hundred tests) and `npm run bench -- decisions` (a larger run).
//
// A trial: 300–3,000 visitors a side a day (log-uniform, ±20% from day to day, split at random), a conversion rate of
// 1–5%, and a true relative lift (0 for A/A, ±12% for the effects); each visitor converts or not
// (Bernoulli), so the counts are exactly what a store would see. Checked on days 7 to 28 with the data
// of the completed days, as a consultant syncing every morning would.
import {
  decideTest,
  DEFAULT_DECISION_SETTINGS,
  mixtureHalfWidth,
  upperQuantile,
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

export type Trial = { perDay: number; rate: number; lift: number };

export const FIRST_CHECK = 7;
export const LAST_CHECK = 28;

/** Each way of calling a test, and the call it made by day 28 (null: none). */
export type Outcome = {
  /** Splitbook's decision, read after every completed day. */
  sequential: 'ship' | 'keep_control' | null;
  /** A fixed-horizon two-sided z-test at 95%, read once on day 28. */
  fixed: 'ship' | 'keep_control' | null;
  /** Splitbook's chance to win read daily, acted on at 95% (or 5%): what a reader without a rule does. */
  peeking: 'ship' | 'keep_control' | null;
  /** The always-valid interval at GrowthBook's default tuning (N* = 5,000), read daily. */
  alwaysValid: 'ship' | 'keep_control' | null;
};

export function trialsOf(random: () => number, count: number, lifts: readonly number[]): Trial[] {
  return Array.from({ length: count }, (_, i) => ({
    perDay: Math.round(300 * Math.exp(random() * Math.log(10))),
    rate: 0.01 + random() * 0.04,
    lift: lifts[i % lifts.length] ?? 0,
  }));
}

function daysOf(trial: Trial, random: () => number): DayCounts[] {
  const out: DayCounts[] = [];
  for (let d = 0; d < LAST_CHECK; d++) {
    // The day's visitors (±20% from day to day), split evenly at random as an assignment does.
    const total = Math.max(2, Math.round(2 * trial.perDay * (0.8 + 0.4 * random())));
    const gauss = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const a = Math.min(
      total - 1,
      Math.max(1, Math.round(total / 2 + (Math.sqrt(total) / 2) * gauss)),
    );
    const b = total - a;
    const convert = (n: number, p: number) => {
      let c = 0;
      for (let i = 0; i < n; i++) if (random() < p) c++;
      return c;
    };
    // Orders = conversions and revenue 50 an order, so the daily figures add up as a store's do.
    out.push({
      control: { visitors: a, conversions: convert(a, trial.rate) },
      variant: { visitors: b, conversions: convert(b, trial.rate * (1 + trial.lift)) },
    });
  }
  return out;
}

const ZERO_DAY: DayCounts = {
  control: { visitors: 0, conversions: 0 },
  variant: { visitors: 0, conversions: 0 },
};

/** GrowthBook's default: the sequence is tightest at 5,000 visitors in all. */
const GROWTHBOOK_TUNING = 5000;

function logLift(days: readonly DayCounts[]) {
  let ca = 0;
  let na = 0;
  let cb = 0;
  let nb = 0;
  for (const day of days) {
    ca += day.control.conversions;
    na += day.control.visitors;
    cb += day.variant.conversions;
    nb += day.variant.visitors;
  }
  if (ca === 0 || cb === 0) return null;
  const pa = ca / na;
  const pb = cb / nb;
  return {
    theta: Math.log(pb / pa),
    variance: (1 - pa) / ca + (1 - pb) / cb,
    n: na + nb,
    ca,
    na,
    cb,
    nb,
  };
}

/** Runs one trial through every way of calling it. `everyDay` checks the decision daily (else on day 28 only: the same outcome, as a call once made stays). */
export function runTrial(
  trial: Trial,
  random: () => number,
  settings: DecisionSettings = DEFAULT_DECISION_SETTINGS,
  everyDay = true,
): Outcome {
  const days = daysOf(trial, random);
  const test = testOf({
    status: 'active',
    endAt: null,
    startAt: '2026-05-01T00:00:00Z',
    automaticallyEndAt: null,
  });
  const outcome: Outcome = { sequential: null, fixed: null, peeking: null, alwaysValid: null };
  const alpha = 1 - settings.credibility;
  const z = upperQuantile(alpha / 2);
  for (let d = FIRST_CHECK; d <= LAST_CHECK; d++) {
    const sofar = days.slice(0, d);
    if (everyDay || d === LAST_CHECK) {
      // The completed days and today's, still empty (as a sync early in the morning sees it).
      const results = resultsOf([...sofar, ZERO_DAY]);
      const call = decideTest({ test, results, settings })?.call;
      if (outcome.sequential === null && (call === 'ship' || call === 'keep_control'))
        outcome.sequential = call;
    }
    const estimate = logLift(sofar);
    if (estimate === null) continue;
    const sign = (positive: boolean): 'ship' | 'keep_control' =>
      positive ? 'ship' : 'keep_control';
    if (outcome.peeking === null) {
      const bayes = analyseBinary(
        side({ visitors: estimate.na, conversions: estimate.ca }),
        side({ visitors: estimate.nb, conversions: estimate.cb }),
        'cvr',
      );
      if (
        bayes !== null &&
        (bayes.pWin >= settings.credibility || bayes.pWin <= 1 - settings.credibility)
      )
        outcome.peeking = sign(bayes.pWin > 0.5);
    }
    if (outcome.alwaysValid === null) {
      // GrowthBook: ρ² = (−2 ln α + ln(1 − 2 ln α)) / N*, per-observation variance s² = Var · n.
      const l = -2 * Math.log(alpha);
      const rho2 = (l + Math.log(1 + l)) / GROWTHBOOK_TUNING;
      const tau2 = estimate.variance * estimate.n * rho2;
      const half = mixtureHalfWidth(estimate.variance, tau2, alpha);
      if (Math.abs(estimate.theta) >= half) outcome.alwaysValid = sign(estimate.theta > 0);
    }
    if (d === LAST_CHECK && Math.abs(estimate.theta) / Math.sqrt(estimate.variance) >= z)
      outcome.fixed = sign(estimate.theta > 0);
  }
  return outcome;
}

export type Tally = {
  tests: number;
  right: Record<keyof Outcome, number>;
  wrong: Record<keyof Outcome, number>;
};

/** Runs `trials` and counts, per method, calls on the true side and on the wrong side (any call is wrong for A/A). */
export function tally(
  trials: readonly Trial[],
  random: () => number,
  settings?: DecisionSettings,
  everyDay = true,
): Tally {
  const zero = () => ({ sequential: 0, fixed: 0, peeking: 0, alwaysValid: 0 });
  const result: Tally = { tests: trials.length, right: zero(), wrong: zero() };
  for (const trial of trials) {
    const outcome = runTrial(trial, random, settings, everyDay);
    for (const method of Object.keys(outcome) as (keyof Outcome)[]) {
      const call = outcome[method];
      if (call === null) continue;
      const right =
        trial.lift > 0 ? call === 'ship' : trial.lift < 0 ? call === 'keep_control' : false;
      if (right) result.right[method] += 1;
      else result.wrong[method] += 1;
    }
  }
  return result;
}
