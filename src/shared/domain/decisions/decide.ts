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
import { eventsName, eventsOf } from './estimates';
import { detectableLift, oddsOf } from './forecast';
import { guardrailsFor } from './guardrails';
import {
  finalBoundaryFor,
  informationOn,
  neededDaysFor,
  neededInformation,
  planOf,
  RECENT_DAYS,
  TARGET_POWER,
  trafficOf,
  walkLooks,
  type DecisionDay,
  type SettingsChange,
} from './looks';
import { fadingOf } from './novelty';
import {
  CALL_WORDS,
  type Decision,
  type DecisionChange,
  type DecisionSettings,
  type Guard,
  type PlanSource,
} from './schemas';
import { aboutDays, count, dateWords, days as dayCount, metricWords, plainPercent } from './words';
import { PLAN_SOURCE_WORDS, changeText, flagsText, sequentialSoFar, lookFigures, describe, settingsText, lookOf, planDetails, capitalise } from './call-words';
import { type Context } from './context';
import { type DecisionData, decisionFacts } from './facts';
import { running, settledCall, guardrailChecks, lookBoundary, endedCheck, currentEstimate, harmfulFlag } from './settle';

export { finalBoundaryFor, RECENT_DAYS, TARGET_POWER, type DecisionDay, type SettingsChange };
export { decisionFacts, goalFigures, type DecisionData } from './facts';

/** Bumped when the rules change, so calls cached by an older version are made again. */
export const DECISION_RULES_VERSION = 4;

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

/**
 * The call on a launched test with results, or null for a test that cannot have one (not launched,
 * or no variant). Pure and deterministic: the call decideFrom makes from the test's facts.
 */
export function decideTest(input: DecisionInput): Decision | null {
  const facts = decisionFacts(input.test, input.results);
  return facts === null ? null : decideFrom(facts, input);
}

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
