// The call on one test's goal: ship, keep the control, no difference, keep running (and for how
// long, with its odds), cannot conclude, check the data first, or paused. Pure: the same test, results
// and settings give the same call on every machine, whenever and however often anyone synced.
//
// How (docs/decisions.md has the reasoning and the simulations that check it):
//  1. Data first: a sample-ratio mismatch, counts no reading can make true, or daily figures that
//     contradict the totals stop every call ("check the data first").
//  2. The looks (looks.ts): one per completed day of the test that adds information, once the guards
//     hold (minimum runtime, minimum events a side). A day with no visitors is no look.
//  3. Group sequential test over the planned length: Lan–DeMets O'Brien–Fleming-type spending of
//     1 − credibility on the information fraction. The first look that settles stops: its |z| reaching
//     the boundary (ship or keep the control; no difference when the interval lies inside ± the minimum
//     effect all the same: real but too small to matter), its interval inside the band (no difference),
//     or the plan's last look with the sample for 80% power (no difference).
//  4. A ship whose guardrail (revenue per visitor by default) is clearly worse at the call is "keep the
//     control"; the lift at a call is given adjusted for stopping early (median-unbiased) and as seen.
//  5. After a settings change once the test had data, the looks go on with an always-valid check on
//     the budget left; an ended test that stopped before its plan gets one such check.
//  6. Otherwise: paused (no call until it resumes), keep running with the chance of a call by a day
//     and by the plan's end (predictive power), or cannot conclude when the plan ended without a call or
//     even the larger of the minimum effect and the estimate has under a 10% chance of a call by the
//     longest wait (conditional power).
import type { Test, TestResults } from '../../api';
import { isEnded } from '../lifecycle';
import { metricOfGoal } from '../metrics';
import { analyseBinary } from '../statistics/binary';
import { dailySeries, dateOfDayNumber, dayNumberOfTimestamp } from '../statistics/daily';
import { dailyTotalsMismatch } from '../statistics/alerts';
import { REVENUE_MIN_DAYS, revenueEstimate, tMatching } from '../statistics/revenue';
import { sampleRatioTest } from '../statistics/srm';
import { eventsName, eventsOf, estimateOf, rateEstimate, sumsOf, valueOf, zOf, type Estimate, type GoalMetric } from './estimates';
import {
  conditionalPower,
  detectableLift,
  equivalenceHole,
  FORECAST_PRIOR,
  HOPELESS_POWER,
  medianUnbiased,
  oddsOf,
  predictiveChances,
  type PastLook,
} from './forecast';
import { checkGuardrail, guardrailsFor, worseWords } from './guardrails';
import {
  alwaysValidBoundary,
  bandOf,
  finalBoundaryFor,
  informationOn,
  insideBand,
  intervalAt,
  lookInterval,
  neededDaysFor,
  neededInformation,
  planOf,
  projectLooks,
  recentDailyVisitors,
  RECENT_DAYS,
  TARGET_POWER,
  trafficOf,
  walkLooks,
  type DecisionDay,
  type Look,
  type SettingsChange,
  type Settled,
  type Walked,
} from './looks';
import { fadingOf, type Fading } from './novelty';
import {
  CALL_WORDS,
  type Decision,
  type DecisionCall,
  type DecisionChange,
  type DecisionFacts,
  type DecisionFlags,
  type DecisionForecast,
  type DecisionLook,
  type DecisionPlan,
  type DecisionSettings,
  type GoalFigures,
  type Guard,
  type GuardrailCheck,
  type PlanSource,
} from './schemas';
import { normalCdf } from './sequential';
import { aboutDays, chance, count, dateWords, days as dayCount, metricWords, plainPercent, signedPercent } from './words';

export { finalBoundaryFor, RECENT_DAYS, TARGET_POWER, type DecisionDay, type SettingsChange };

/** Bumped when the rules change, so calls cached by an older version are made again. */
export const DECISION_RULES_VERSION = 4;

/** The two-sided 95% normal quantile. */
const Z95 = 1.959963984540054;

export type DecisionInput = { test: Test; results: TestResults } & DecisionChoice;

/** What a call is made with besides the data: the settings, where the plan came from, and changes since the test had data. */
export type DecisionChoice = {
  settings: DecisionSettings;
  /** Where settings.plannedDays came from when the test has no automaticallyEndAt. */
  planSource?: Exclude<PlanSource, 'automatically-end-at'>;
  /**
   * Settings changes recorded with the day they took effect: looks before a change are judged with the
   * settings before it, and those after by an always-valid check on the budget left (looks.ts).
   */
  changes?: readonly SettingsChange[];
};

function goalMetricOf(test: Test): GoalMetric | null {
  return metricOfGoal(test.goal)?.rate ?? null;
}

/** Splitbook's current figures of the goal from the totals the API sent: the one lift, interval and P(win). */
export function goalFigures(test: Test, results: TestResults): GoalFigures | null {
  const metric = goalMetricOf(test);
  if (metric === null) return null;
  const control = sumsOf(results.control);
  const variant = sumsOf(results.variant);
  const a = valueOf(control, metric);
  const b = valueOf(variant, metric);
  const lift = a !== null && b !== null && a > 0 ? b / a - 1 : null;
  if (metric === 'rpv' || metric === 'aov') {
    // The same guard as the Results tab: no interval, and so no chance to win, before 7 days of data.
    const estimate = revenueEstimate(dailySeries(results.daily).days, metric);
    const usable = estimate !== null && estimate.days >= REVENUE_MIN_DAYS ? { ...estimate } : null;
    return approximateFigures({ metric, control: a, variant: b, lift }, usable);
  }
  const binary = analyseBinary(results.control, results.variant, metric);
  if (binary !== null) {
    return { metric, control: a, variant: b, lift, liftLow: binary.liftCiLow, liftHigh: binary.liftCiHigh, pWin: binary.pWin, approximate: false };
  }
  // More events than visitors (clicks per visitor): a Poisson reading, approximate.
  return approximateFigures({ metric, control: a, variant: b, lift }, rateEstimate(control, variant, metric));
}

/** Figures from a normal (or t) approximation on the log lift (revenue goals, rates read as counts). */
function approximateFigures(base: Pick<GoalFigures, 'metric' | 'control' | 'variant' | 'lift'>, estimate: Estimate | null): GoalFigures {
  if (estimate === null) return { ...base, liftLow: null, liftHigh: null, pWin: null, approximate: true };
  const half = tMatching(Z95, estimate.df) * Math.sqrt(estimate.variance);
  return {
    ...base,
    liftLow: Math.expm1(estimate.theta - half),
    liftHigh: Math.expm1(estimate.theta + half),
    pWin: normalCdf(zOf(estimate)),
    approximate: true,
  };
}


const PLAN_SOURCE_WORDS: Record<PlanSource, string> = {
  'automatically-end-at': "the test's automatic end",
  test: "this test's plan",
  store: "the store's default",
  setting: 'the default',
};

const CHANGE_SOURCE_WORDS: Record<SettingsChange['source'], string> = {
  settings: 'the default settings',
  store: "the store's settings",
  test: "this test's plan",
};

/** A settings change in words: "planned length 28 → 21 days, credibility 95% → 90% (the store's settings)". */
function changeText(before: DecisionSettings, after: DecisionSettings, source: SettingsChange['source']): string {
  const parts: string[] = [];
  if (before.plannedDays !== after.plannedDays) parts.push(`planned length ${before.plannedDays} → ${after.plannedDays} days`);
  if (before.credibility !== after.credibility) parts.push(`credibility ${plainPercent(before.credibility)} → ${plainPercent(after.credibility)}`);
  if (before.minEffect !== after.minEffect) parts.push(`minimum effect ±${plainPercent(before.minEffect)} → ±${plainPercent(after.minEffect)}`);
  if (before.minRuntimeDays !== after.minRuntimeDays) parts.push(`minimum runtime ${before.minRuntimeDays} → ${after.minRuntimeDays} days`);
  if (before.minConversions !== after.minConversions) parts.push(`minimum events ${count(before.minConversions)} → ${count(after.minConversions)}`);
  if (before.longestWaitDays !== after.longestWaitDays) parts.push(`longest wait ${before.longestWaitDays} → ${after.longestWaitDays} days`);
  if (JSON.stringify(before.guardrails) !== JSON.stringify(after.guardrails)) parts.push(`guardrails ${guardrailsWords(before.guardrails)} → ${guardrailsWords(after.guardrails)}`);
  return `${parts.length === 0 ? 'settings saved again' : parts.join(', ')} (${CHANGE_SOURCE_WORDS[source]})`;
}

function guardrailsWords(choice: DecisionSettings['guardrails']): string {
  if (choice === 'default') return 'the default';
  return choice.length === 0 ? 'none' : choice.map(metricWords).join(' and ');
}

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
      ? `visitors split ${plainPercent(srm.observedControlShare ?? 0)} / ${plainPercent(1 - (srm.observedControlShare ?? 0))} against ${plainPercent(srm.expectedControlShare ?? 0)} / ${plainPercent(1 - (srm.expectedControlShare ?? 0))} configured, p ${srm.pValue !== null && srm.pValue < 0.0001 ? '< 0.0001' : `= ${srm.pValue?.toFixed(4)}`}`
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

/** Everything one call's sentences and figures are made from, gathered once. */
type Context = {
  facts: DecisionFacts;
  metric: GoalMetric;
  settings: DecisionSettings;
  walked: Walked;
  guards: Guard[];
  goal: GoalFigures | null;
  plan: DecisionPlan | null;
  base: Pick<Decision, 'settings' | 'version' | 'guards' | 'goal' | 'plan' | 'odds' | 'flags' | 'guardrails' | 'forecast'>;
  settingsWords: string;
  planText: string;
};

/** The call from a test's facts with the settings given: decideTest's steps 1 to 6. */
export function decideFrom(data: DecisionData, input: DecisionChoice): Decision {
  const { facts, days } = data;
  const { settings } = input;
  const { metric, startDay } = facts;
  const empty = { guardrails: [], odds: null, forecast: null, flags: { fading: null, harmful: null }, settings, version: DECISION_RULES_VERSION };
  if (metric === null) {
    return {
      ...empty,
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
  const settingsWords = settingsText(settings, metric);

  if (facts.impossible.length > 0 || facts.srmMismatch || facts.dailyAlerts) {
    const srmGuard = facts.dataGuards.find((guard) => guard.id === 'sample-ratio');
    const reasons = [
      ...(facts.srmMismatch ? [`visitors did not split as configured: ${srmGuard?.text.replace(/^visitors split /, '') ?? ''}`] : []),
      ...(facts.impossible.length > 0 ? [`counts that cannot be true: ${facts.impossible.join('; ')}`] : []),
      ...(facts.dailyAlerts ? ['the daily figures do not add up to the totals'] : []),
    ];
    const plan = startDay === null ? null : planOf(facts.automaticallyEndAt, startDay, settings, input.planSource);
    return {
      ...empty,
      call: 'check_data',
      words: CALL_WORDS.check_data,
      reason: `${capitalise(reasons.join('; '))}. No call can be trusted until this is explained.`,
      daysToDecision: null,
      decisionDate: null,
      method: 'none',
      basis: `Data checks on the totals and daily figures; ${settingsWords}.`,
      guards: [...facts.dataGuards],
      look: null,
      plan: plan === null ? null : planDetails(plan, startDay, null, null, []),
      goal,
    };
  }

  const walked = walkLooks({
    metric,
    days,
    startDay,
    automaticallyEndAt: facts.automaticallyEndAt,
    settings,
    planSource: input.planSource,
    changes: input.changes ?? [],
    watching: guardrailsFor(metric, settings.guardrails).length > 0,
  });
  const { control, variant, lastDay } = walked;
  const events = eventsName(metric);
  const runtimeGuard: Guard = { id: 'runtime', ok: lastDay >= settings.minRuntimeDays, text: `${dayCount(lastDay)} of data (${settings.minRuntimeDays} needed)` };
  const eventsGuard: Guard = {
    id: 'events',
    ok: Math.min(eventsOf(control, metric), eventsOf(variant, metric)) >= settings.minConversions,
    text: `${count(eventsOf(control, metric))} and ${count(eventsOf(variant, metric))} ${events} (${count(settings.minConversions)} a side needed)`,
  };
  const guards: Guard[] = [runtimeGuard, eventsGuard, ...facts.dataGuards];
  const changes: DecisionChange[] = walked.changes.map((change, k) => ({
    from: change.from,
    text: changeText(change.settings, walked.changes[k + 1]?.settings ?? settings, change.source),
  }));
  const needed = neededInformation(settings, walked.plannedDays);
  const neededDays = neededDaysFor(walked, metric, needed, settings);
  const traffic = trafficOf(walked, metric);
  const finalBoundary = finalBoundaryFor(walked.plannedDays, settings.minRuntimeDays, 1 - settings.credibility);
  const detectable = traffic === null ? null : detectableLift(informationOn(walked, traffic, walked.plannedDays), finalBoundary, TARGET_POWER);
  const plan = walked.plan === null ? null : planDetails(walked.plan, startDay, neededDays, detectable, changes);
  const current = currentEstimate(metric, days);
  const odds = current === null ? null : oddsOf(current.theta, current.variance, settings.minEffect);
  const fading = fadingOf(metric, walked.seen);
  const context: Context = {
    facts,
    metric,
    settings,
    walked,
    guards,
    goal,
    plan,
    base: { settings, version: DECISION_RULES_VERSION, guards, goal, plan, odds, flags: { fading, harmful: null }, guardrails: [], forecast: null },
    settingsWords,
    planText: walked.designPlan === null ? '' : `, a ${walked.designDays}-day plan (${PLAN_SOURCE_WORDS[walked.designPlan.source]})`,
  };

  if (walked.settled !== null) return settledCall(context, walked.settled);

  const over = isEnded(facts.status) || (facts.status !== 'active' && facts.status !== 'paused' && facts.status !== 'suspended');
  const pastPlan = lastDay >= walked.plannedDays;
  const lastLook = walked.looks[walked.looks.length - 1] ?? null;

  // The plan ended (its final look added too little to be one): the powered no difference still applies.
  if (walked.changes.length === 0 && pastPlan && lastLook !== null && lastLook.method === 'group-sequential' && 1 / lastLook.estimate.variance >= neededInformation(walked.design, walked.designDays)) {
    return settledCall(context, { look: lastLook, kind: 'powered' });
  }

  // An ended test that stopped before its plan: one always-valid check on the budget left.
  if (over && !pastPlan && lastLook !== null && lastLook.method === 'group-sequential') {
    const checked = endedCheck(walked, lastLook, settings);
    if (checked !== null) return settledCall(context, checked, ', the test ended before its plan');
  }

  const detectText = neededDays === null ? '' : `detecting ±${plainPercent(settings.minEffect)} on ${metricWords(metric)} would take ${aboutDays(neededDays)} at its traffic`;
  if (over || pastPlan) {
    const where = over ? 'The test ended' : `The ${walked.plannedDays}-day plan ended`;
    const now = lastLook === null ? 'before the guards held' : `without a call: ${lookFigures(context, lastLook)}`;
    return {
      ...context.base,
      call: 'cannot_conclude',
      words: CALL_WORDS.cannot_conclude,
      reason: `${where} ${now}${detectText === '' ? '' : `; ${detectText}`}${flagsText(null, fading)}.`,
      daysToDecision: null,
      decisionDate: null,
      method: lastLook === null ? 'none' : lastLook.method,
      basis: lastLook === null ? `No look: ${runtimeGuard.text}; ${eventsGuard.text}; ${settingsWords}.` : describe(context, lastLook),
      look: lastLook === null ? null : lookOf(context, lastLook, null),
    };
  }

  const guardrails = lastLook === null ? [] : guardrailChecks(context, lastLook, lookBoundary(walked, lastLook));
  const worse = guardrails.find((check) => check.verdict === 'worse') ?? null;
  const harmful = harmfulFlag(context, worse);
  const flagged = { ...context.base, guardrails, flags: { fading, harmful } };

  if (facts.status === 'paused' || facts.status === 'suspended') {
    const lastTraffic = [...walked.seen].reverse().find((day) => day.control.visitors + day.variant.visitors > 0);
    const since = lastTraffic === undefined ? null : dateWords(lastTraffic.dayNumber + 1);
    const state = facts.status === 'paused' ? 'Paused' : 'Suspended';
    return {
      ...flagged,
      call: 'paused',
      words: `${state}${since === null ? '' : ` since ${since}`} — no call until it resumes`,
      reason:
        `${state}: no call until it resumes${lastLook === null ? '' : `; so far ${sequentialSoFar(context, lastLook)}`}` +
        `${lastTraffic === undefined ? '' : ` (the API gives no pause date: the last day with visitors was ${dateWords(lastTraffic.dayNumber)})`}.`,
      daysToDecision: null,
      decisionDate: null,
      method: lastLook === null ? 'none' : lastLook.method,
      basis: lastLook === null ? `No look yet: ${runtimeGuard.text}; ${eventsGuard.text}; ${settingsWords}.` : describe(context, lastLook),
      look: lastLook === null ? null : lookOf(context, lastLook, null),
    };
  }

  return running(context, { lastLook, guardrails, worse, flagged, detectText, neededDays });
}

type RunningParts = {
  lastLook: Look | null;
  guardrails: GuardrailCheck[];
  worse: GuardrailCheck | null;
  flagged: Context['base'];
  detectText: string;
  neededDays: number | null;
};

/** A test still within its plan: keep running with the odds of a call, or cannot conclude when a call is out of reach. */
function running(context: Context, parts: RunningParts): Decision {
  const { metric, settings, walked, facts } = context;
  const { lastLook, flagged, detectText, neededDays } = parts;
  const { lastDay } = walked;
  const horizon = Math.min(walked.plannedDays, settings.longestWaitDays);
  const projection = projectLooks(walked, metric, settings, horizon);
  const lastDayNumber = walked.seen[walked.seen.length - 1]?.dayNumber ?? (facts.startDay ?? 0) + lastDay - 1;
  const sofar = lastLook === null ? guardsSoFar(context) : sequentialSoFar(context, lastLook);
  const basis = lastLook === null ? `No look yet: ${context.guards[0]?.text ?? ''}; ${context.guards[1]?.text ?? ''}; ${context.settingsWords}.` : describe(context, lastLook);
  const withFlags = (text: string) => `${text}${flagsText(parts.worse, flagged.flags.fading)}${flagged.flags.harmful !== null && parts.worse === null ? `; ${flagged.flags.harmful.text}` : ''}.`;
  const hopeless = (reason: string): Decision => ({
    ...flagged,
    call: 'cannot_conclude',
    words: CALL_WORDS.cannot_conclude,
    reason: withFlags(reason),
    daysToDecision: null,
    decisionDate: null,
    method: lastLook === null ? 'none' : lastLook.method,
    basis,
    look: lastLook === null ? null : lookOf(context, lastLook, null),
  });

  if (projection === null) {
    if (lastDay >= settings.minRuntimeDays) return hopeless(`No visitors in the last ${RECENT_DAYS} days to go by${sofar === '' ? '' : `; ${sofar}`}`);
    return {
      ...flagged,
      call: 'keep_running',
      words: CALL_WORDS.keep_running,
      reason: withFlags(capitalise(sofar === '' ? 'no traffic yet to go by' : sofar)),
      daysToDecision: null,
      decisionDate: null,
      method: 'none',
      basis,
      look: null,
    };
  }

  // Can a call still come? Conditional power at the longest wait, for the larger of the minimum effect and the estimate.
  const { traffic } = projection;
  // The estimate so far: the last look's, or before the guards hold, the days' so far.
  const estimateNow = projection.startInfo > 0 ? projection.start / projection.startInfo : 0;
  const effect = Math.max(Math.log1p(settings.minEffect), Math.abs(estimateNow));
  const signed = estimateNow < 0 ? -effect : effect;
  const longest = settings.longestWaitDays;
  const longestInfo = informationOn(walked, traffic, Math.max(longest, lastDay));
  const longestBoundary = finalBoundaryFor(Math.max(longest, walked.design.minRuntimeDays), walked.design.minRuntimeDays, walked.alpha);
  const power = conditionalPower(projection.start, projection.startInfo, signed, longestInfo, longestBoundary);
  const visitorsText = `${count(traffic.perDay)} visitors a day`;
  if (power < HOPELESS_POWER) {
    return hopeless(
      `Even a lift of ${signedPercent(Math.expm1(signed))} would have a ${chance(power)} chance of a call within the longest wait of ${dayCount(longest)} at this traffic (${visitorsText})` +
        `${detectText === '' ? '' : `; ${detectText}`}${sofar === '' ? '' : `; ${sofar}`}`,
    );
  }

  const chances = predictiveChances(projection.start, projection.startInfo, projection.looks);
  const finalIndex = projection.looks.length - 1;
  const byEnd = chances[finalIndex] ?? 0;
  let target = projection.looks.findIndex((_, k) => (chances[k] ?? 0) >= 0.5);
  if (target < 0) target = finalIndex;
  const targetLook = projection.looks[target];
  const forecast: DecisionForecast | null =
    targetLook === undefined
      ? null
      : {
          day: targetLook.day,
          date: dateOfDayNumber(lastDayNumber + (targetLook.day - lastDay)),
          chance: chances[target] ?? 0,
          planDay: walked.plannedDays,
          chanceByPlanEnd: byEnd,
          method: 'predictive',
        };
  const waitDays = Math.max(1, (targetLook?.day ?? walked.plannedDays) - lastDay);
  const plan = context.plan;
  const tooShort =
    plan !== null && plan.tooShort && plan.detectable !== null && neededDays !== null
      ? `; at this traffic the ${walked.plannedDays}-day plan detects about ±${plainPercent(plan.detectable)}, ±${plainPercent(settings.minEffect)} would take ${aboutDays(neededDays)}`
      : '';
  const odds =
    forecast === null
      ? ''
      : forecast.day >= walked.plannedDays
        ? `; a call by the plan's end (day ${walked.plannedDays}) is ${chance(byEnd)} likely`
        : `; a call by day ${forecast.day} is ${chance(forecast.chance)} likely, by the plan's end (day ${walked.plannedDays}) ${chance(byEnd)}`;
  return {
    ...flagged,
    call: 'keep_running',
    words: flagged.flags.harmful !== null ? 'Likely harmful — consider stopping' : `${CALL_WORDS.keep_running}, ${aboutDays(waitDays)}`,
    reason: withFlags(`${capitalise(sofar === '' ? 'Not yet clear' : sofar)}${odds}${tooShort}`),
    daysToDecision: waitDays,
    decisionDate: dateOfDayNumber(lastDayNumber + waitDays),
    method: lastLook === null ? 'none' : lastLook.method,
    basis: `${basis.replace(/\.$/, '')}; forecast by predictive power at ${visitorsText} (prior: ${priorWords()}).`,
    look: lastLook === null ? null : lookOf(context, lastLook, null),
    forecast,
  };
}

/** A settled look as the call: its figures at the call, the guardrails, the adjusted lift. */
function settledCall(context: Context, settled: Settled, extra = ''): Decision {
  const { metric, walked } = context;
  const { look, kind } = settled;
  const boundary = lookBoundary(walked, look);
  const interval = intervalAt(look.estimate, boundary);
  let call: DecisionCall = kind === 'crossing' ? (look.z > 0 ? 'ship' : 'keep_control') : 'no_difference';
  const guardrails = guardrailChecks(context, look, boundary);
  // A guardrail watched from the call on: clearly worse at the call's look, or at a look of the plan since, each with its own boundary.
  let worse = guardrails.find((check) => check.verdict === 'worse') ?? null;
  let worseAt: Look = look;
  if (call === 'ship' && worse === null) {
    for (const later of walked.after) {
      const found = guardrailChecks(context, later, later.boundary).find((check) => check.verdict === 'worse');
      if (found !== undefined) {
        worse = found;
        worseAt = later;
        break;
      }
    }
  }
  const turned = call === 'ship' && worse !== null;
  if (turned) call = 'keep_control';
  const adjusted = kind === 'crossing' && look.method === 'group-sequential' ? adjustedLift(walked, look) : null;
  const at = `day ${look.day} (${dateWords(look.dayNumber)})`;
  const name = metricWords(metric);
  const lift = adjusted === null ? signedPercent(Math.expm1(look.estimate.theta)) : `${signedPercent(adjusted)} adjusted for stopping early (${signedPercent(Math.expm1(look.estimate.theta))} as seen)`;
  const figures = `${name} ${lift}, ${plainPercent(1 - walked.alpha)} sequential interval ${signedPercent(interval.low)} to ${signedPercent(interval.high)}, ${count(eventsOf(look.control, metric))} vs ${count(eventsOf(look.variant, metric))} ${eventsName(metric)}`;
  let reason: string;
  if (turned && worse !== null) {
    const seenAt = worseAt === look ? '' : ` (on day ${worseAt.day}, ${dateWords(worseAt.dayNumber)})`;
    reason = `At the call, ${at}: ${worse.text}${seenAt}, ${worseWords(worse)}, although ${figures}`;
  } else if (kind === 'small') {
    reason = `At the call, ${at}: ${figures}: a real but small difference, smaller than the ±${plainPercent(look.settings.minEffect)} that matters`;
  } else if (kind === 'equivalent') {
    reason = `At the call, ${at}: ${figures}: the interval lies within ±${plainPercent(look.settings.minEffect)}`;
  } else if (kind === 'powered') {
    reason = `The ${walked.designDays}-day plan ended without a winner, with the sample to detect ±${plainPercent(look.settings.minEffect)} with ${plainPercent(TARGET_POWER)} power: ${figures} on ${at}`;
  } else {
    const unclear = guardrails.filter((check) => check.verdict === 'unclear' || check.verdict === 'not-judged');
    reason = `At the call, ${at}: ${figures}${extra}${call === 'ship' && unclear.length > 0 ? `; guardrail ${unclear.map((check) => check.text).join(', ')}: not clear, the call stands` : ''}`;
  }
  return {
    ...context.base,
    call,
    words: CALL_WORDS[call],
    reason: `${reason}${flagsText(null, context.base.flags.fading)}.`,
    daysToDecision: null,
    decisionDate: null,
    method: look.method,
    basis: describe(context, look),
    guardrails: worse !== null && !guardrails.includes(worse) ? [...guardrails.filter((check) => check.metric !== worse.metric), worse] : guardrails,
    look: lookOf(context, look, adjusted),
  };
}

/** The guardrails of the goal checked at a look with the boundary c. */
function guardrailChecks(context: Context, look: Look, boundary: number): GuardrailCheck[] {
  const metrics = guardrailsFor(context.metric, look.settings.guardrails);
  const days = context.walked.seen.slice(0, look.through);
  return metrics.map((metric) => checkGuardrail(metric, look.control, look.variant, days, boundary));
}

/** The look's boundary, or the last finite one before it (a look with no budget left has none). */
function lookBoundary(walked: Walked, look: Look): number {
  if (Number.isFinite(look.boundary)) return look.boundary;
  const finite = [...walked.looks].reverse().find((l) => l.dayNumber <= look.dayNumber && Number.isFinite(l.boundary));
  return finite?.boundary ?? Infinity;
}

/** The median-unbiased lift at a group sequential crossing, from the path of looks that led to it. */
function adjustedLift(walked: Walked, call: Look): number | null {
  const looks = walked.looks.filter((look) => look.method === 'group-sequential' && look.dayNumber <= call.dayNumber);
  // On the walk's information scale; the estimate's scale differs by the call look's ratio (revenue).
  const scale = 1 / call.estimate.variance / call.walkInfo;
  const sign = call.z > 0 ? 1 : -1;
  const past: PastLook[] = looks.map((look) => {
    const band = bandOf(look.settings);
    const hole = equivalenceHole(look.walkInfo * scale, look.boundary, sign > 0 ? band : { low: -band.high, high: -band.low });
    return { info: look.walkInfo * scale, boundary: look.boundary, hole };
  });
  const info = call.walkInfo * scale;
  const eta = medianUnbiased(past, sign * call.z * Math.sqrt(info));
  return Number.isFinite(eta) ? Math.expm1(sign * eta) : null;
}

/** An ended test before its plan: one always-valid check on the budget left, or null when it settles nothing. */
function endedCheck(walked: Walked, last: Look, settings: DecisionSettings): Settled | null {
  const left = 1 - settings.credibility - last.spent;
  if (!(left > 1e-9)) return null;
  const visitors = last.control.visitors + last.variant.visitors;
  const plannedVisitors = visitors + recentDailyVisitors(walked.seen) * Math.max(0, walked.plannedDays - last.day);
  const boundary = alwaysValidBoundary(last.estimate.variance, visitors, plannedVisitors, left);
  const checked: Look = { ...last, boundary, method: 'always-valid', settings };
  const interval = intervalAt(last.estimate, boundary);
  const inside = insideBand(interval, settings.minEffect);
  if (Math.abs(last.z) >= boundary) return { look: checked, kind: inside ? 'small' : 'crossing' };
  if (inside) return { look: checked, kind: 'equivalent' };
  return null;
}

/** The current estimate of the goal from every completed day: what the odds beside a call are read from. */
function currentEstimate(metric: GoalMetric, days: readonly DecisionDay[]): Estimate | null {
  let control = sumsOf({ visitors: 0, conversions: 0, carts: 0, clicks: 0, orders: 0, revenue: 0 });
  let variant = control;
  for (const day of days) {
    control = addSides(control, day.control);
    variant = addSides(variant, day.variant);
  }
  if ((metric === 'rpv' || metric === 'aov') && days.filter((day) => day.control.visitors > 0 && day.variant.visitors > 0).length < REVENUE_MIN_DAYS) return null;
  const estimate = estimateOf(metric, control, variant, days);
  return estimate !== null && estimate.variance > 0 ? estimate : null;
}

function addSides(a: DecisionDay['control'], b: DecisionDay['control']): DecisionDay['control'] {
  return {
    visitors: a.visitors + b.visitors,
    conversions: a.conversions + b.conversions,
    carts: a.carts + b.carts,
    clicks: a.clicks + b.clicks,
    orders: a.orders + b.orders,
    revenue: a.revenue + b.revenue,
  };
}

/** "Likely harmful — consider stopping": the always-valid interval of every completed day lies below zero. */
function harmfulFlag(context: Context, worse: GuardrailCheck | null): DecisionFlags['harmful'] {
  const { metric, walked, settings } = context;
  if (worse !== null) return { text: `likely harmful — consider stopping: ${worse.text}, ${worseWords(worse)}` };
  const estimate = currentEstimate(metric, walked.seen) ?? (metric === 'rpv' || metric === 'aov' ? null : estimateOf(metric, walked.control, walked.variant, walked.seen));
  if (estimate === null || !(estimate.variance > 0)) return null;
  const visitors = walked.control.visitors + walked.variant.visitors;
  const planned = visitors + recentDailyVisitors(walked.seen) * Math.max(0, walked.plannedDays - walked.lastDay);
  const boundary = alwaysValidBoundary(estimate.variance, visitors, planned, 1 - settings.credibility);
  const interval = intervalAt(estimate, boundary);
  if (!(interval.high < 0)) return null;
  return { text: `likely harmful — consider stopping: ${metricWords(metric)} ${signedPercent(Math.expm1(estimate.theta))} (always-valid interval ${signedPercent(interval.low)} to ${signedPercent(interval.high)})` };
}

function flagsText(worse: GuardrailCheck | null, fading: Fading | null): string {
  return `${worse === null ? '' : `; ${worse.text} so far: ${worseWords(worse)}`}${fading === null ? '' : `; ${fading.text}, look before acting`}`;
}

/** "the 95% sequential interval through 2026-11-14 (−2.0% to +8.1%) still holds lifts beyond ±5%". */
function sequentialSoFar(context: Context, look: Look): string {
  const interval = lookInterval(context.walked, look);
  return `the ${plainPercent(1 - context.walked.alpha)} sequential interval of ${metricWords(context.metric)} through ${dateWords(look.dayNumber)} (${signedPercent(interval.low)} to ${signedPercent(interval.high)}) still holds lifts beyond ±${plainPercent(look.settings.minEffect)}`;
}

function guardsSoFar(context: Context): string {
  const [runtime, eventsGuard] = context.guards;
  return [runtime, eventsGuard].filter((guard): guard is Guard => guard !== undefined && !guard.ok).map((guard) => guard.text).join('; ');
}

/** A look's figures in a sentence (for ended tests without a call). */
function lookFigures(context: Context, look: Look): string {
  const interval = lookInterval(context.walked, look);
  return `${metricWords(context.metric)} ${signedPercent(Math.expm1(look.estimate.theta))} (${plainPercent(1 - context.walked.alpha)} sequential interval ${signedPercent(interval.low)} to ${signedPercent(interval.high)}) on day ${look.day} (${dateWords(look.dayNumber)})`;
}

/** The basis line: method, look, figures and settings. */
function describe(context: Context, look: Look): string {
  const { metric, walked, settingsWords, planText } = context;
  const interval = lookInterval(walked, look);
  const left = 1 - look.settings.credibility - look.spent;
  const change = walked.changes[0];
  const methodText =
    look.method === 'always-valid'
      ? `Always-valid interval (normal mixture) on the ${plainPercent(Math.max(0, left))} of budget left${change === undefined ? '' : ` since the settings changed on ${change.from}`}`
      : `Group sequential test (O'Brien–Fleming spending), look on day ${look.day}${planText}, |z| ${Math.abs(look.z).toFixed(2)} against ${Number.isFinite(look.boundary) ? look.boundary.toFixed(2) : 'no budget left'}, ${plainPercent(look.spent)} of ${plainPercent(walked.alpha)} spent`;
  const t = Number.isFinite(look.estimate.df) ? `, Student's t on ${look.estimate.df.toFixed(1)} degrees of freedom (days as replicates)` : '';
  return (
    `${methodText}; ${metricWords(metric)} from ${count(eventsOf(look.control, metric))} / ${count(look.control.visitors)} vs ` +
    `${count(eventsOf(look.variant, metric))} / ${count(look.variant.visitors)} through ${dateOfDayNumber(look.dayNumber)}${t}; ` +
    `interval ${signedPercent(interval.low)} to ${signedPercent(interval.high)}; ${settingsWords}.`
  );
}

function settingsText(settings: DecisionSettings, metric: GoalMetric): string {
  const guardrails = guardrailsFor(metric, settings.guardrails);
  return (
    `credibility ${plainPercent(settings.credibility)}, effect ±${plainPercent(settings.minEffect)}, ` +
    `≥${dayCount(settings.minRuntimeDays)}, ≥${count(settings.minConversions)} ${eventsName(metric)} a side, ` +
    `guardrail${guardrails.length === 1 ? '' : 's'} ${guardrails.length === 0 ? 'none' : guardrails.map(metricWords).join(' and ')}`
  );
}

function lookOf(context: Context, look: Look, adjustedLift: number | null): DecisionLook {
  const { metric, walked } = context;
  const interval = lookInterval(walked, look);
  return {
    day: look.day,
    date: dateOfDayNumber(look.dayNumber),
    lift: Math.expm1(look.estimate.theta),
    low: interval.low,
    high: interval.high,
    adjustedLift,
    z: look.z,
    boundary: Number.isFinite(look.boundary) ? look.boundary : null,
    infoFraction: look.infoFraction,
    spent: look.spent,
    alpha: walked.alpha,
    controlEvents: eventsOf(look.control, metric),
    variantEvents: eventsOf(look.variant, metric),
    controlVisitors: look.control.visitors,
    variantVisitors: look.variant.visitors,
  };
}

function planDetails(
  plan: { days: number; source: PlanSource },
  startDay: number | null,
  neededDays: number | null,
  detectable: number | null,
  changes: DecisionChange[],
): DecisionPlan {
  return {
    plannedDays: plan.days,
    source: plan.source,
    endDate: startDay === null ? null : dateOfDayNumber(startDay + plan.days - 1),
    neededDays,
    tooShort: neededDays !== null && neededDays > plan.days,
    detectable,
    changes,
  };
}

/** The forecast's prior in words: "no effect 50%, ±5% 35%, ±20% 15%". */
function priorWords(): string {
  return FORECAST_PRIOR.map((part) => `${part.sd === 0 ? 'no effect' : `±${plainPercent(part.sd)}`} ${plainPercent(part.share)}`).join(', ');
}

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]?.toUpperCase() + text.slice(1);
}
