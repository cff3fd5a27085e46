// The call on one test's goal: ship, keep the control, no difference, keep running (and for how
// long), cannot conclude, or check the data first. Pure: the same test, results and settings give the
// same call on every machine, whenever and however often anyone synced.
//
// How (docs/decisions.md has the reasoning and the simulation that checks it):
//  1. Data first: a sample-ratio mismatch, counts no reading can make true, or daily figures that
//     contradict the totals stop every call ("check the data first").
//  2. The looks: one per completed day of the test, rebuilt from the API's daily figures (the last day
//     of an active test is still in progress, so it is not a look). A look counts once the guards hold
//     (minimum runtime, minimum events a side).
//  3. Group sequential test over the planned length: the error budget 1 − credibility is spent by
//     Lan–DeMets O'Brien–Fleming-type spending on the information fraction (visitors so far ÷ visitors
//     expected by the planned end at the last 7 days' rate). The first look whose |z| reaches its
//     boundary settles ship or keep the control. Its repeated confidence interval (estimate ± boundary ×
//     standard error) is the interval shown: it holds under daily checks.
//  4. No difference: that interval lies within ± the minimum effect, or the test already has the
//     information to detect the minimum effect with 80% power and neither side won.
//  5. An ended test (or one stopped before its plan) that did not settle gets one last always-valid
//     check (normal-mixture confidence sequence) on what is left of the budget, never a fresh one.
//  6. Otherwise: keep running, with the days until the call settles if the current estimate held (or
//     the plan ends), or cannot conclude when that would take longer than the longest wait.
import type { Test, TestResults } from '../../api';
import { isEnded } from '../lifecycle';
import { metricOfGoal } from '../metrics';
import { analyseBinary } from '../statistics/binary';
import { dailySeries, dateOfDayNumber, dayNumberOf, dayNumberOfTimestamp, DAY_MS, type Day } from '../statistics/daily';
import { dailyTotalsMismatch } from '../statistics/alerts';
import { sampleRatioTest } from '../statistics/srm';
import {
  addSide,
  EMPTY_SUMS,
  eventsName,
  eventsOf,
  rateEstimate,
  revenueEstimateOf,
  sumsOf,
  valueOf,
  type Estimate,
  type GoalMetric,
  type SideSums,
} from './estimates';
import {
  CALL_WORDS,
  type Decision,
  type DecisionCall,
  type DecisionFacts,
  type DecisionLook,
  type DecisionMethod,
  type DecisionPlan,
  type DecisionSettings,
  type GoalFigures,
  type Guard,
  type PlanSource,
} from './schemas';
import {
  informationFor,
  mixtureHalfWidth,
  mixtureTuning,
  normalCdf,
  obrienFlemingSpent,
  SequentialBoundaries,
} from './sequential';
import { aboutDays, count, days as dayCount, metricWords, plainPercent, probability, signedPercent } from './words';

/** Bumped when the rules change, so calls cached by an older version are made again. */
export const DECISION_RULES_VERSION = 3;

/** The power a test should have to detect the minimum effect. */
export const TARGET_POWER = 0.8;
/** The days of traffic a projection and the information fraction go by. */
export const RECENT_DAYS = 7;
/** The two-sided 95% normal quantile. */
const Z95 = 1.959963984540054;

export type DecisionInput = { test: Test; results: TestResults } & DecisionChoice;

/** What a call is made with besides the data: the settings, and where the plan came from. */
export type DecisionChoice = {
  settings: DecisionSettings;
  /** Where settings.plannedDays came from when the test has no automaticallyEndAt. */
  planSource?: Exclude<PlanSource, 'automatically-end-at'>;
  /**
   * A planned length changed after the test had data: from `date` ('YYYY-MM-DD') on, the old plan's
   * spending stops and only an always-valid check on the budget left can make a call.
   */
  planChange?: { date: string; previousDays: number } | null;
};

/** A completed day of the looks: each side's counts that day. */
export type DecisionDay = { dayNumber: number; control: SideSums; variant: SideSums };

type Look = {
  day: number;
  dayNumber: number;
  control: SideSums;
  variant: SideSums;
  estimate: Estimate;
  z: number;
  boundary: number;
  infoFraction: number;
  spent: number;
  /** How the look was judged: the group sequential boundary, or (after a plan change) the always-valid one. */
  method: 'group-sequential' | 'always-valid';
};

/**
 * The |z| an always-valid check needs on the budget `left`: the normal-mixture sequence, tuned to be
 * tightest at the information the plan expects by its end (visitors so far → planned visitors).
 */
function alwaysValidBoundary(variance: number, visitors: number, plannedVisitors: number, left: number): number {
  if (!(left > 1e-9)) return Infinity;
  const tau2 = mixtureTuning(variance * (visitors / Math.max(plannedVisitors, visitors)), left);
  return mixtureHalfWidth(variance, tau2, left) / Math.sqrt(variance);
}

/** The final boundary of a plan with daily looks from the minimum runtime, by (plan, first look, α). */
const finalBoundaries = new Map<string, number>();

export function finalBoundaryFor(plannedDays: number, firstDay: number, alpha: number): number {
  const first = Math.min(Math.max(firstDay, 1), plannedDays);
  const key = `${plannedDays}:${first}:${alpha}`;
  const known = finalBoundaries.get(key);
  if (known !== undefined) return known;
  const walk = new SequentialBoundaries(alpha);
  let c = Infinity;
  for (let day = first; day <= plannedDays; day++) c = walk.look(day / plannedDays, obrienFlemingSpent(day / plannedDays, alpha));
  finalBoundaries.set(key, c);
  return c;
}

function goalMetricOf(test: Test): GoalMetric | null {
  return metricOfGoal(test.goal)?.rate ?? null;
}

function estimateOf(metric: GoalMetric, control: SideSums, variant: SideSums, days: readonly DecisionDay[], usedDays: number): Estimate | null {
  if (metric === 'rpv' || metric === 'aov') return revenueEstimateOf(days, control, variant, metric, usedDays);
  return rateEstimate(control, variant, metric);
}

/** Splitbook's figures of the goal from the totals the API sent: the list's Lift and P(win). */
export function goalFigures(test: Test, results: TestResults): GoalFigures | null {
  const metric = goalMetricOf(test);
  if (metric === null) return null;
  const control = sumsOf(results.control);
  const variant = sumsOf(results.variant);
  const a = valueOf(control, metric);
  const b = valueOf(variant, metric);
  const lift = a !== null && b !== null && a > 0 ? b / a - 1 : null;
  if (metric === 'rpv' || metric === 'aov') {
    const { days } = dailySeries(results.daily);
    const denominator = (side: Day['control']): number => (metric === 'rpv' ? side.visitors : side.orders);
    const used = days.filter((day) => denominator(day.control) > 0 && denominator(day.variant) > 0).length;
    return approximateFigures({ metric, control: a, variant: b, lift }, revenueEstimateOf(days, control, variant, metric, used));
  }
  const binary = analyseBinary(results.control, results.variant, metric);
  if (binary !== null) {
    return { metric, control: a, variant: b, lift, liftLow: binary.liftCiLow, liftHigh: binary.liftCiHigh, pWin: binary.pWin, approximate: false };
  }
  // More events than visitors (clicks per visitor): a Poisson reading, approximate.
  return approximateFigures({ metric, control: a, variant: b, lift }, rateEstimate(control, variant, metric));
}

/** Figures from a normal approximation on the log lift (revenue goals, rates read as counts). */
function approximateFigures(
  base: Pick<GoalFigures, 'metric' | 'control' | 'variant' | 'lift'>,
  estimate: Estimate | null,
): GoalFigures {
  if (estimate === null) return { ...base, liftLow: null, liftHigh: null, pWin: null, approximate: true };
  const sd = Math.sqrt(estimate.variance);
  return {
    ...base,
    liftLow: Math.expm1(estimate.theta - Z95 * sd),
    liftHigh: Math.expm1(estimate.theta + Z95 * sd),
    pWin: normalCdf(estimate.theta / sd),
    approximate: true,
  };
}

/** The planned length: automaticallyEndAt when it lies after the start, else the setting. */
function planOf(automaticallyEndAt: string | null, startDay: number, settings: DecisionSettings, source: DecisionInput['planSource']): { days: number; source: PlanSource } {
  const end = automaticallyEndAt === null ? Number.NaN : Date.parse(automaticallyEndAt);
  if (Number.isFinite(end)) {
    const planned = Math.ceil((end - startDay * DAY_MS) / DAY_MS);
    if (planned >= 1) return { days: planned, source: 'automatically-end-at' };
  }
  return { days: settings.plannedDays, source: source ?? 'setting' };
}

const PLAN_SOURCE_WORDS: Record<PlanSource, string> = {
  'automatically-end-at': "the test's automatic end",
  test: "this test's plan",
  store: "the store's default",
  setting: 'the default',
};

/** The impossible counts of a side, in words (empty when every count can be true). */
function impossibleCounts(results: TestResults): string[] {
  const problems: string[] = [];
  for (const sideName of ['control', 'variant'] as const) {
    const side = results[sideName];
    const fields = ['visitors', 'conversions', 'carts', 'clicks', 'orders', 'revenue'] as const;
    for (const field of fields) {
      if (!Number.isFinite(side[field]) || side[field] < 0) problems.push(`the ${sideName}'s ${field} is ${side[field]}`);
    }
    if (side.conversions > side.visitors) problems.push(`the ${sideName} has more conversions (${count(side.conversions)}) than visitors (${count(side.visitors)})`);
    if (side.carts > side.visitors) problems.push(`the ${sideName} has more carts (${count(side.carts)}) than visitors (${count(side.visitors)})`);
  }
  return problems;
}

/** The look's interval: estimate ± boundary · sd on the log scale (the fixed-look 95% when no boundary applies). */
function intervalOf(theta: number, variance: number, boundary: number): { low: number; high: number } {
  const sd = Math.sqrt(variance);
  const c = Number.isFinite(boundary) ? boundary : Z95;
  return { low: Math.expm1(theta - c * sd), high: Math.expm1(theta + c * sd) };
}

function lookOf(look: Look, alpha: number, metric: GoalMetric, interval: { low: number; high: number }): DecisionLook {
  return {
    day: look.day,
    date: dateOfDayNumber(look.dayNumber),
    lift: Math.expm1(look.estimate.theta),
    low: interval.low,
    high: interval.high,
    z: look.z,
    boundary: Number.isFinite(look.boundary) ? look.boundary : null,
    infoFraction: look.infoFraction,
    spent: look.spent,
    alpha,
    controlEvents: eventsOf(look.control, metric),
    variantEvents: eventsOf(look.variant, metric),
    controlVisitors: look.control.visitors,
    variantVisitors: look.variant.visitors,
  };
}

/** P(variant wins) at a look: exact for a binary rate, a normal approximation otherwise. */
function chanceAt(look: Look, metric: GoalMetric): number {
  if (metric === 'cvr' || metric === 'acr' || metric === 'ctr') {
    const binary = analyseBinary(look.control, look.variant, metric);
    if (binary !== null) return binary.pWin;
  }
  return normalCdf(look.estimate.theta / Math.sqrt(look.estimate.variance));
}

/**
 * The call on a launched test with results, or null for a test that cannot have one (not launched,
 * or no variant). Pure and deterministic: the call decideFrom makes from the test's facts.
 */
export function decideTest(input: DecisionInput): Decision | null {
  const facts = decisionFacts(input.test, input.results);
  return facts === null ? null : decideFrom(facts, input);
}

/** A test's facts with the completed days' counts they are kept beside. */
export type DecisionData = { facts: DecisionFacts; days: DecisionDay[] };

/**
 * What a call is made from that no setting changes (the goal, its figures, the data checks, the
 * completed days), or null for a test that cannot have a call (no variant).
 */
export function decisionFacts(test: Test, results: TestResults): DecisionData | null {
  if (test.variant === null) return null;
  const metric = goalMetricOf(test);
  const known = { goal: test.goal, metric, status: test.status, automaticallyEndAt: test.automaticallyEndAt };
  if (metric === null) {
    const facts = { ...known, startDay: null, goalFigures: null, dataGuards: [], srmMismatch: false, impossible: [], dailyAlerts: false };
    return { facts, days: [] };
  }
  const goal = goalFigures(test, results);
  const { days: allDays, skippedKeys } = dailySeries(results.daily);
  const startDay = dayNumberOfTimestamp(test.startAt) ?? allDays[0]?.dayNumber ?? null;
  // The last day of an active test is still in progress: it is not a look yet.
  const days = test.status === 'active' && allDays.length > 0 ? allDays.slice(0, -1) : allDays;

  // 1. Data checks.
  const guards: Guard[] = [];
  const srm = sampleRatioTest(results.control.visitors, results.variant.visitors, test.control.traffic, test.variant.traffic);
  guards.push({
    id: 'sample-ratio',
    ok: !srm.mismatch,
    text: srm.mismatch
      ? `visitors split ${plainPercent(srm.observedControlShare ?? 0)} / ${plainPercent(1 - (srm.observedControlShare ?? 0))} against ${plainPercent(srm.expectedControlShare ?? 0)} / ${plainPercent(1 - (srm.expectedControlShare ?? 0))} configured (p ${srm.pValue !== null && srm.pValue < 0.0001 ? '< 0.0001' : `= ${srm.pValue?.toFixed(4)}`})`
      : srm.judged
        ? 'visitors split as configured'
        : `split not judged: ${srm.reason ?? ''}`.trim(),
  });
  const impossible = impossibleCounts(results);
  guards.push({ id: 'counts', ok: impossible.length === 0, text: impossible.length === 0 ? 'counts can all be true' : impossible.join('; ') });
  const dailyAlerts = dailyTotalsMismatch({
    test,
    results,
    days: allDays,
    skippedKeys,
    srm: { ...srm, onsetDate: null },
    goalRate: metric,
    goalAnalysis: null,
    now: 0,
  });
  guards.push({
    id: 'daily-totals',
    ok: dailyAlerts.length === 0,
    text: dailyAlerts.length === 0 ? 'daily figures add up to the totals' : dailyAlerts.map((a) => a.message).join(' '),
  });
  const facts = {
    ...known,
    startDay,
    goalFigures: goal,
    dataGuards: guards,
    srmMismatch: srm.mismatch,
    impossible,
    dailyAlerts: dailyAlerts.length > 0,
  };
  return { facts, days: days.map((day) => ({ dayNumber: day.dayNumber, control: sumsOf(day.control), variant: sumsOf(day.variant) })) };
}

/** The call from a test's facts with the settings and plan given: decideTest's steps 1 to 6. */
export function decideFrom(data: DecisionData, input: DecisionChoice): Decision {
  const { facts, days } = data;
  const { settings } = input;
  const alpha = 1 - settings.credibility;
  const { metric, startDay } = facts;
  const base = { settings, version: DECISION_RULES_VERSION };
  if (metric === null) {
    return {
      ...base,
      call: 'cannot_conclude',
      words: CALL_WORDS.cannot_conclude,
      reason: `Splitbook cannot read the goal "${facts.goal}" as one of its metrics, so it makes no call; the store's own figures are on the Results tab.`,
      daysToDecision: null,
      decisionDate: null,
      method: 'none',
      basis: `Goal "${facts.goal}" not known to Splitbook.`,
      guards: [],
      look: null,
      plan: null,
      goal: null,
    };
  }
  const goal = facts.goalFigures;
  const events = eventsName(metric);
  const guards: Guard[] = [...facts.dataGuards];
  const impossible = facts.impossible;

  const plan = startDay === null ? null : planOf(facts.automaticallyEndAt, startDay, settings, input.planSource);
  const plannedDays = plan?.days ?? settings.plannedDays;
  const firstLookDay = settings.minRuntimeDays;
  const finalBoundary = finalBoundaryFor(plannedDays, firstLookDay, alpha);
  const delta = Math.log1p(settings.minEffect);
  const neededInfo = informationFor(delta, alpha, TARGET_POWER, finalBoundary);
  const settingsWords =
    `credibility ${plainPercent(settings.credibility)}, effect ±${plainPercent(settings.minEffect)}, ` +
    `≥${dayCount(settings.minRuntimeDays)}, ≥${count(settings.minConversions)} ${events} a side`;

  if (impossible.length > 0 || facts.srmMismatch || facts.dailyAlerts) {
    const reasons = [
      ...(facts.srmMismatch ? [`visitors did not split as configured (${guards[0]?.text ?? ''})`] : []),
      ...(impossible.length > 0 ? [`counts that cannot be true: ${impossible.join('; ')}`] : []),
      ...(facts.dailyAlerts ? ['the daily figures do not add up to the totals'] : []),
    ];
    return {
      ...base,
      call: 'check_data',
      words: CALL_WORDS.check_data,
      reason: `${capitalise(reasons.join('; '))}: no call can be trusted until this is explained.`,
      daysToDecision: null,
      decisionDate: null,
      method: 'none',
      basis: `Data checks on the totals and daily figures; ${settingsWords}.`,
      guards,
      look: null,
      plan: plan === null ? null : planDetails(plan, startDay, null),
      goal,
    };
  }

  // 2–3. The looks, and the group sequential test over them.
  const walk = new SequentialBoundaries(alpha);
  let control = EMPTY_SUMS;
  let variant = EMPTY_SUMS;
  let usedDays = 0;
  const seen: DecisionDay[] = [];
  let lastLook: Look | null = null;
  let crossing: Look | null = null;
  let lastFiniteBoundary = Infinity;
  let lastDay = 0;
  const changeDay = input.planChange ? dayNumberOf(input.planChange.date) : null;
  for (let k = 0; k < days.length; k++) {
    const day = days[k];
    if (day === undefined) continue;
    seen.push(day);
    control = addSide(control, day.control);
    variant = addSide(variant, day.variant);
    const denominator = (side: SideSums): number => (metric === 'aov' ? side.orders : side.visitors);
    if (denominator(day.control) > 0 && denominator(day.variant) > 0) usedDays += 1;
    const dayIndex = startDay === null ? k + 1 : Math.max(1, day.dayNumber - startDay + 1);
    lastDay = dayIndex;
    if (dayIndex < settings.minRuntimeDays) continue;
    if (Math.min(eventsOf(control, metric), eventsOf(variant, metric)) < Math.max(1, settings.minConversions)) continue;
    const estimate = estimateOf(metric, control, variant, seen, usedDays);
    if (estimate === null || !(estimate.variance > 0)) continue;
    const visitors = control.visitors + variant.visitors;
    const recent = recentDailyVisitors(seen);
    const z = estimate.theta / Math.sqrt(estimate.variance);
    let look: Look;
    if (changeDay !== null && day.dayNumber >= changeDay) {
      // The plan changed after the data was seen: its spending stops; what is left is spent always-valid.
      const planned = visitors + recent * Math.max(0, plannedDays - dayIndex);
      const boundary = alwaysValidBoundary(estimate.variance, visitors, planned, alpha - walk.spent);
      look = { day: dayIndex, dayNumber: day.dayNumber, control, variant, estimate, z, boundary, infoFraction: visitors / Math.max(planned, visitors), spent: walk.spent, method: 'always-valid' };
    } else {
      const spendOver = changeDay !== null && input.planChange ? input.planChange.previousDays : plannedDays;
      const infoFraction = dayIndex >= spendOver ? 1 : visitors / (visitors + recent * (spendOver - dayIndex));
      const boundary = walk.look(1 / estimate.variance, obrienFlemingSpent(infoFraction, alpha));
      look = { day: dayIndex, dayNumber: day.dayNumber, control, variant, estimate, z, boundary, infoFraction, spent: walk.spent, method: 'group-sequential' };
    }
    if (Number.isFinite(look.boundary)) lastFiniteBoundary = look.boundary;
    lastLook = look;
    if (Math.abs(z) >= look.boundary) {
      crossing = look;
      break;
    }
  }

  const runtimeGuard: Guard = {
    id: 'runtime',
    ok: lastDay >= settings.minRuntimeDays,
    text: `${dayCount(lastDay)} of data (${settings.minRuntimeDays} needed)`,
  };
  const eventsGuard: Guard = {
    id: 'events',
    ok: Math.min(eventsOf(control, metric), eventsOf(variant, metric)) >= settings.minConversions,
    text: `${count(eventsOf(control, metric))} and ${count(eventsOf(variant, metric))} ${events} (${count(settings.minConversions)} a side needed)`,
  };
  guards.unshift(runtimeGuard, eventsGuard);
  const through = lastDay > 0 && days.length > 0 ? dateOfDayNumber(days[days.length - 1]?.dayNumber ?? 0) : null;
  const planText = plan === null ? '' : `, a ${plannedDays}-day plan (${PLAN_SOURCE_WORDS[plan.source]})`;

  const describe = (look: Look, method: DecisionMethod, interval: { low: number; high: number }): string => {
    const methodText =
      method === 'always-valid'
        ? `Always-valid interval (normal mixture) on the ${plainPercent(alpha - look.spent)} of budget left${input.planChange ? ` since the plan changed on ${input.planChange.date}` : ''}`
        : `Group sequential test (O'Brien–Fleming spending), look on day ${look.day}${planText}, |z| ${Math.abs(look.z).toFixed(2)} against ${Number.isFinite(look.boundary) ? look.boundary.toFixed(2) : 'no budget left'}, ${plainPercent(look.spent)} of ${plainPercent(alpha)} spent`;
    return (
      `${methodText}; ${metricWords(metric)} from ${count(eventsOf(look.control, metric))} / ${count(look.control.visitors)} vs ` +
      `${count(eventsOf(look.variant, metric))} / ${count(look.variant.visitors)} through ${dateOfDayNumber(look.dayNumber)}; ` +
      `interval ${signedPercent(interval.low)} to ${signedPercent(interval.high)}; ${settingsWords}.`
    );
  };

  const figures = (look: Look, interval: { low: number; high: number }): string =>
    `${metricWords(metric)} ${signedPercent(Math.expm1(look.estimate.theta))} ` +
    `(${plainPercent(settings.credibility)} sequential interval ${signedPercent(interval.low)} to ${signedPercent(interval.high)}), ` +
    `${probability(chanceAt(look, metric))} chance to win, ${dayCount(look.day)}, ` +
    `${count(eventsOf(look.control, metric))} vs ${count(eventsOf(look.variant, metric))} ${events}` +
    (goal?.approximate && (metric === 'rpv' || metric === 'aov') ? ' (approximate)' : '');

  const planDetailsNow =
    plan === null
      ? null
      : {
          ...planDetails(plan, startDay, neededDaysFor(lastLook, neededInfo, seen, lastDay, metric, control, variant, settings)),
          changedOn: input.planChange?.date ?? null,
          previousDays: input.planChange?.previousDays ?? null,
        };

  const settled = (call: DecisionCall, look: Look, method: DecisionMethod, interval: { low: number; high: number }, extra = ''): Decision => {
    const decisionLook = lookOf(look, alpha, metric, interval);
    return {
      ...base,
      call,
      words: CALL_WORDS[call],
      reason: `${figures(look, interval)}${extra}.`,
      daysToDecision: null,
      decisionDate: null,
      method,
      basis: describe(look, method, interval),
      guards,
      look: decisionLook,
      plan: planDetailsNow,
      goal,
    };
  };

  const rci = (look: Look, boundary: number) => intervalOf(look.estimate.theta, look.estimate.variance, boundary);

  if (crossing !== null) {
    const interval = rci(crossing, crossing.boundary);
    return settled(crossing.z > 0 ? 'ship' : 'keep_control', crossing, crossing.method, interval);
  }

  const withinEffect = (interval: { low: number; high: number }) => interval.low > -settings.minEffect && interval.high < settings.minEffect;

  if (lastLook !== null) {
    const interval = rci(lastLook, lastFiniteBoundary);
    if (withinEffect(interval)) {
      return settled('no_difference', lastLook, lastLook.method, interval, `: the interval lies within ±${plainPercent(settings.minEffect)}`);
    }
    if (1 / lastLook.estimate.variance >= neededInfo) {
      return settled(
        'no_difference',
        lastLook,
        lastLook.method,
        interval,
        `: the test has the sample to detect ±${plainPercent(settings.minEffect)} with ${plainPercent(TARGET_POWER)} power, and neither side won`,
      );
    }
  }

  const over = isEnded(facts.status) || (facts.status !== 'active' && facts.status !== 'paused' && facts.status !== 'suspended');
  const pastPlan = lastDay >= plannedDays;

  // 5. An ended test that stopped before its plan: one always-valid check on the budget left.
  if (over && !pastPlan && lastLook !== null && lastLook.method === 'group-sequential') {
    const left = alpha - lastLook.spent;
    const visitors = lastLook.control.visitors + lastLook.variant.visitors;
    const plannedVisitors = visitors + recentDailyVisitors(seen) * Math.max(0, plannedDays - lastLook.day);
    const half = alwaysValidBoundary(lastLook.estimate.variance, visitors, plannedVisitors, left) * Math.sqrt(lastLook.estimate.variance);
    const interval = { low: Math.expm1(lastLook.estimate.theta - half), high: Math.expm1(lastLook.estimate.theta + half) };
    const checked: Look = { ...lastLook, boundary: half / Math.sqrt(lastLook.estimate.variance), method: 'always-valid' };
    if (left > 1e-9 && Math.abs(lastLook.estimate.theta) >= half) {
      return settled(lastLook.estimate.theta > 0 ? 'ship' : 'keep_control', checked, 'always-valid', interval, ', the test ended before its plan');
    }
    if (left > 1e-9 && withinEffect(interval)) {
      return settled('no_difference', checked, 'always-valid', interval, `: the interval lies within ±${plainPercent(settings.minEffect)}`);
    }
  }

  const neededDays = neededDaysFor(lastLook, neededInfo, seen, lastDay, metric, control, variant, settings);
  const detectText =
    neededDays === null
      ? ''
      : `detecting ±${plainPercent(settings.minEffect)} on ${metricWords(metric)} would take ${aboutDays(neededDays)} at its traffic`;

  if (over || pastPlan) {
    const where = over ? 'The test ended' : `The ${plannedDays}-day plan ended`;
    const now = lastLook === null ? 'before the guards held' : `without a call: ${figures(lastLook, rci(lastLook, lastFiniteBoundary))}`;
    return {
      ...base,
      call: 'cannot_conclude',
      words: CALL_WORDS.cannot_conclude,
      reason: `${where} ${now}${detectText === '' ? '' : `; ${detectText}`}.`,
      daysToDecision: null,
      decisionDate: null,
      method: lastLook === null ? 'none' : 'group-sequential',
      basis: lastLook === null ? `No look: ${runtimeGuard.text}; ${eventsGuard.text}; ${settingsWords}.` : describe(lastLook, 'group-sequential', rci(lastLook, lastFiniteBoundary)),
      guards,
      look: lastLook === null ? null : lookOf(lastLook, alpha, metric, rci(lastLook, lastFiniteBoundary)),
      plan: planDetailsNow,
      goal,
    };
  }

  // 6. Still running: when would the call settle if the current estimate held?
  const projection = project({
    walk,
    metric,
    seen,
    control,
    variant,
    estimate: lastLook?.estimate ?? estimateOf(metric, control, variant, seen, usedDays),
    lastDay,
    plannedDays,
    settings,
    alpha,
    neededInfo,
    horizon: Math.min(plannedDays, settings.longestWaitDays),
  });
  const lastDayNumber = days[days.length - 1]?.dayNumber ?? (startDay ?? 0) + lastDay - 1;
  const longest = settings.longestWaitDays;
  const tooLong =
    (projection === null && neededDays !== null && neededDays > longest) ||
    (projection === null && plannedDays > longest) ||
    (projection === null && neededDays === null && lastDay >= settings.minRuntimeDays);
  const sofar =
    lastLook === null
      ? `${capitalise(runtimeGuard.ok ? '' : `${runtimeGuard.text}; `)}${eventsGuard.ok ? '' : eventsGuard.text}`.replace(/; $/, '')
      : `${metricWords(metric)} ${signedPercent(Math.expm1(lastLook.estimate.theta))} so far (${plainPercent(settings.credibility)} sequential interval ${signedPercent(rci(lastLook, lastFiniteBoundary).low)} to ${signedPercent(rci(lastLook, lastFiniteBoundary).high)})`;
  if (tooLong) {
    const traffic = recentDailyVisitors(seen);
    return {
      ...base,
      call: 'cannot_conclude',
      words: CALL_WORDS.cannot_conclude,
      reason:
        `${capitalise(detectText === '' ? 'no visitors in the last days to go by' : detectText)}` +
        `${traffic > 0 ? ` (${count(traffic)} visitors a day)` : ''}, longer than the longest wait of ${dayCount(longest)}` +
        `${sofar === '' ? '' : `; ${sofar}`}.`,
      daysToDecision: neededDays === null ? null : Math.max(0, Math.round(neededDays - lastDay)),
      decisionDate: null,
      method: lastLook === null ? 'none' : 'group-sequential',
      basis: lastLook === null ? `No look yet: ${runtimeGuard.text}; ${eventsGuard.text}; ${settingsWords}.` : describe(lastLook, 'group-sequential', rci(lastLook, lastFiniteBoundary)),
      guards,
      look: lastLook === null ? null : lookOf(lastLook, alpha, metric, rci(lastLook, lastFiniteBoundary)),
      plan: planDetailsNow,
      goal,
    };
  }
  const target = projection ?? { day: plannedDays, kind: 'plan-end' as const };
  const waitDays = Math.max(1, target.day - lastDay);
  const expected =
    target.kind === 'plan-end'
      ? `the call settles at the planned end (day ${plannedDays})`
      : target.kind === 'no-difference'
        ? `no meaningful difference is expected by day ${target.day} if the estimate holds`
        : `a call is expected around day ${target.day} if the estimate holds`;
  return {
    ...base,
    call: 'keep_running',
    words: `${CALL_WORDS.keep_running}, ${aboutDays(waitDays)}`,
    reason: `${sofar === '' ? '' : `${capitalise(sofar)}; `}${expected}.`,
    daysToDecision: waitDays,
    decisionDate: dateOfDayNumber(lastDayNumber + waitDays),
    method: lastLook === null ? 'none' : 'group-sequential',
    basis:
      lastLook === null
        ? `No look yet: ${runtimeGuard.text}; ${eventsGuard.text}; projected from the last ${RECENT_DAYS} days' traffic${through === null ? '' : ` through ${through}`}${planText}; ${settingsWords}.`
        : describe(lastLook, 'group-sequential', rci(lastLook, lastFiniteBoundary)),
    guards,
    look: lastLook === null ? null : lookOf(lastLook, alpha, metric, rci(lastLook, lastFiniteBoundary)),
    plan: planDetailsNow,
    goal,
  };
}

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]?.toUpperCase() + text.slice(1);
}

/** Mean visitors a day (both sides) over the last RECENT_DAYS days seen. */
function recentDailyVisitors(seen: readonly DecisionDay[]): number {
  const recent = seen.slice(-RECENT_DAYS);
  if (recent.length === 0) return 0;
  return recent.reduce((sum, day) => sum + day.control.visitors + day.variant.visitors, 0) / recent.length;
}

/**
 * Days from the start the test needs to reach `neededInfo` (and its guards) at its recent traffic, or
 * null without a basis. From the last look when there is one (information grows with visitors at the
 * same rates); before any look, from the pooled rate of both sides.
 */
function neededDaysFor(
  look: Look | null,
  neededInfo: number,
  seen: readonly DecisionDay[],
  lastDay: number,
  metric: GoalMetric,
  control: SideSums,
  variant: SideSums,
  settings: DecisionSettings,
): number | null {
  const daily = recentDailyVisitors(seen);
  if (!(daily > 0)) return null;
  let days: number;
  if (look !== null) {
    const info = 1 / look.estimate.variance;
    const visitors = look.control.visitors + look.variant.visitors;
    if (info >= neededInfo) return look.day;
    days = Math.max(lastDay, look.day) + Math.ceil(((visitors * neededInfo) / info - visitors) / daily);
  } else {
    const visitors = control.visitors + variant.visitors;
    const events = eventsOf(control, metric) + eventsOf(variant, metric);
    if (!(events > 0) || !(control.visitors > 0) || !(variant.visitors > 0)) return null;
    const rate = events / visitors;
    const unit = metric === 'aov' ? 1 / rate : rate < 1 ? (1 - rate) / rate : 1 / rate;
    const share = control.visitors / visitors;
    const neededVisitors = neededInfo * unit * (1 / share + 1 / (1 - share));
    days = lastDay + Math.max(0, Math.ceil((neededVisitors - visitors) / daily));
  }
  // The guards too: the minimum runtime, and the minimum events a side at the recent pace.
  const recent = seen.slice(-RECENT_DAYS);
  for (const side of ['control', 'variant'] as const) {
    const have = eventsOf(side === 'control' ? control : variant, metric);
    if (have >= settings.minConversions) continue;
    const perDay = recent.reduce((sum, day) => sum + eventsOf(sumsOf(day[side]), metric), 0) / Math.max(1, recent.length);
    if (!(perDay > 0)) return null;
    days = Math.max(days, lastDay + Math.ceil((settings.minConversions - have) / perDay));
  }
  return Math.max(days, settings.minRuntimeDays);
}

function planDetails(plan: { days: number; source: PlanSource }, startDay: number | null, neededDays: number | null): DecisionPlan {
  return {
    plannedDays: plan.days,
    source: plan.source,
    endDate: startDay === null ? null : dateOfDayNumber(startDay + plan.days - 1),
    neededDays,
    tooShort: neededDays !== null && neededDays > plan.days,
    changedOn: null,
    previousDays: null,
  };
}

type ProjectionInput = {
  walk: SequentialBoundaries;
  metric: GoalMetric;
  seen: readonly DecisionDay[];
  control: SideSums;
  variant: SideSums;
  estimate: Estimate | null;
  lastDay: number;
  plannedDays: number;
  settings: DecisionSettings;
  alpha: number;
  neededInfo: number;
  horizon: number;
};

type Projection = { day: number; kind: 'call' | 'no-difference' };

/**
 * The first future day on which the rule would settle the call if the estimate held and traffic went
 * on at its recent rate: boundaries projected from the looks so far. Null when none does by `horizon`.
 */
function project(input: ProjectionInput): Projection | null {
  const { metric, seen, estimate, lastDay, plannedDays, settings, alpha, neededInfo, horizon } = input;
  const recent = seen.slice(-RECENT_DAYS);
  if (recent.length === 0 || estimate === null) return null;
  const perDay = (pick: (day: DecisionDay) => number) => recent.reduce((sum, day) => sum + pick(day), 0) / recent.length;
  const visitorsA = perDay((d) => d.control.visitors);
  const visitorsB = perDay((d) => d.variant.visitors);
  if (!(visitorsA + visitorsB > 0)) return null;
  const walk = input.walk.clone();
  const base = { control: input.control, variant: input.variant };
  const baseVisitors = base.control.visitors + base.variant.visitors;
  const eventsA = eventsOf(base.control, metric);
  const eventsB = eventsOf(base.variant, metric);
  // Events grow at the rates so far (the estimate holds); information grows with visitors.
  const rateA = base.control.visitors > 0 ? eventsA / base.control.visitors : 0;
  const rateB = base.variant.visitors > 0 ? eventsB / base.variant.visitors : 0;
  const delta = settings.minEffect;
  for (let day = lastDay + 1; day <= horizon; day++) {
    const added = day - lastDay;
    const nA = base.control.visitors + visitorsA * added;
    const nB = base.variant.visitors + visitorsB * added;
    const projectedA = eventsA + rateA * visitorsA * added;
    const projectedB = eventsB + rateB * visitorsB * added;
    if (day < settings.minRuntimeDays) continue;
    if (Math.min(projectedA, projectedB) < Math.max(1, settings.minConversions)) continue;
    const variance = estimate.variance * (baseVisitors / (nA + nB));
    const visitors = nA + nB;
    const infoFraction = day >= plannedDays ? 1 : visitors / (visitors + (visitorsA + visitorsB) * (plannedDays - day));
    const boundary = walk.look(1 / variance, obrienFlemingSpent(infoFraction, alpha));
    if (Math.abs(estimate.theta) / Math.sqrt(variance) >= boundary) return { day, kind: 'call' };
    const { low, high } = intervalOf(estimate.theta, variance, boundary);
    if ((low > -delta && high < delta) || 1 / variance >= neededInfo) return { day, kind: 'no-difference' };
  }
  return null;
}
