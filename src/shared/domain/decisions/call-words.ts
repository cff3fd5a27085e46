// The words of a call: its basis line, the settings and plan it was made with, each look described,
// and the changes of settings since the test had data.
import { dateOfDayNumber } from '../statistics/daily';
import { eventsName, eventsOf, type GoalMetric } from './estimates';
import { FORECAST_PRIOR } from './forecast';
import { guardrailsFor, worseWords } from './guardrails';
import { lookInterval, type Look, type SettingsChange } from './looks';
import { type Fading } from './novelty';
import {
  type DecisionChange,
  type DecisionLook,
  type DecisionPlan,
  type DecisionSettings,
  type Guard,
  type GuardrailCheck,
  type PlanSource,
} from './schemas';
import { count, dateWords, days as dayCount, metricWords, plainPercent, signedPercent } from './words';
import type { Context } from './context';

export const PLAN_SOURCE_WORDS: Record<PlanSource, string> = {
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
export function changeText(before: DecisionSettings, after: DecisionSettings, source: SettingsChange['source']): string {
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

export function flagsText(worse: GuardrailCheck | null, fading: Fading | null): string {
  return `${worse === null ? '' : `; ${worse.text} so far: ${worseWords(worse)}`}${fading === null ? '' : `; ${fading.text}, look before acting`}`;
}

/** "the 95% sequential interval through 2026-11-14 (−2.0% to +8.1%) still holds lifts beyond ±5%". */
export function sequentialSoFar(context: Context, look: Look): string {
  const interval = lookInterval(context.walked, look);
  return `the ${plainPercent(1 - context.walked.alpha)} sequential interval of ${metricWords(context.metric)} through ${dateWords(look.dayNumber)} (${signedPercent(interval.low)} to ${signedPercent(interval.high)}) still holds lifts beyond ±${plainPercent(look.settings.minEffect)}`;
}

export function guardsSoFar(context: Context): string {
  const [runtime, eventsGuard] = context.guards;
  return [runtime, eventsGuard].filter((guard): guard is Guard => guard !== undefined && !guard.ok).map((guard) => guard.text).join('; ');
}

/** A look's figures in a sentence (for ended tests without a call). */
export function lookFigures(context: Context, look: Look): string {
  const interval = lookInterval(context.walked, look);
  return `${metricWords(context.metric)} ${signedPercent(Math.expm1(look.estimate.theta))} (${plainPercent(1 - context.walked.alpha)} sequential interval ${signedPercent(interval.low)} to ${signedPercent(interval.high)}) on day ${look.day} (${dateWords(look.dayNumber)})`;
}

/** The basis line: method, look, figures and settings. */
export function describe(context: Context, look: Look): string {
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

export function settingsText(settings: DecisionSettings, metric: GoalMetric): string {
  const guardrails = guardrailsFor(metric, settings.guardrails);
  return (
    `credibility ${plainPercent(settings.credibility)}, effect ±${plainPercent(settings.minEffect)}, ` +
    `≥${dayCount(settings.minRuntimeDays)}, ≥${count(settings.minConversions)} ${eventsName(metric)} a side, ` +
    `guardrail${guardrails.length === 1 ? '' : 's'} ${guardrails.length === 0 ? 'none' : guardrails.map(metricWords).join(' and ')}`
  );
}

export function lookOf(context: Context, look: Look, adjustedLift: number | null): DecisionLook {
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

export function planDetails(
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
export function priorWords(): string {
  return FORECAST_PRIOR.map((part) => `${part.sd === 0 ? 'no effect' : `±${plainPercent(part.sd)}`} ${plainPercent(part.share)}`).join(', ');
}

export function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]?.toUpperCase() + text.slice(1);
}
