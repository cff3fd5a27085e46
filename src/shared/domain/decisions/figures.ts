// A call's figures in words, one way for every surface (the window, the CLI, the text summary, the
// HTML report): the current lift and its interval lead; the figures at the call carry "at the call, day
// N (date)"; the odds beside a sequential call, the forecast's, the guardrails and the flags each have one
// sentence. Surfaces lay them out differently but never word or round them differently.
import { rateName } from '../metrics';
import { dayNumberOf } from '../statistics/daily';
import type { Decision, GoalFigures } from './schemas';
import { chance, dateWords, plainPercent, probability, signedPercent } from './words';

/** Calls made at a look (their figures are frozen there). */
const SETTLED = new Set(['ship', 'keep_control', 'no_difference']);

/** "+2.8% (95% interval −1.0% to +6.8%)": the goal's lift now, from the totals; null without one. */
export function currentLiftText(goal: GoalFigures | null): string | null {
  if (goal === null || goal.lift === null) return null;
  const interval =
    goal.liftLow !== null && goal.liftHigh !== null
      ? ` (95% interval ${signedPercent(goal.liftLow)} to ${signedPercent(goal.liftHigh)}${goal.approximate ? ', approximate' : ''})`
      : goal.approximate
        ? ' (no interval before 7 days of data)'
        : '';
  return `${signedPercent(goal.lift)}${interval}`;
}

/** "day 14 (14 Nov 2026)": the look of a settled call; null for calls not made at a look. */
export function callDayText(decision: Pick<Decision, 'call' | 'look'>): string | null {
  if (!SETTLED.has(decision.call) || decision.look === null) return null;
  const day = dayNumberOf(decision.look.date);
  return `day ${decision.look.day}${day === null ? '' : ` (${dateWords(day)})`}`;
}

/**
 * "at the call, day 14 (14 Nov 2026): +4.6% adjusted for stopping early (+5.2% as seen), 95% sequential
 * interval +0.4% to +10.1%"; null for calls not made at a look.
 */
export function atTheCallText(decision: Pick<Decision, 'call' | 'look'>): string | null {
  const day = callDayText(decision);
  const look = decision.look;
  if (day === null || look === null) return null;
  const lift =
    look.adjustedLift === null
      ? signedPercent(look.lift)
      : `${signedPercent(look.adjustedLift)} adjusted for stopping early (${signedPercent(look.lift)} as seen)`;
  const level = plainPercent(1 - look.alpha);
  return `at the call, ${day}: ${lift}, ${level} sequential interval ${signedPercent(look.low)} to ${signedPercent(look.high)}`;
}

/** The lift a call was made on: the adjusted one at a group sequential call, else the one seen. */
export function callLift(decision: Pick<Decision, 'look'>): number | null {
  return decision.look === null ? null : (decision.look.adjustedLift ?? decision.look.lift);
}

/**
 * "62% chance of more than +5%, 0.1% of less than −5%; expected loss if shipped 0.1%": figures beside a
 * sequential call that cannot contradict it; null without them.
 */
export function oddsText(decision: Pick<Decision, 'odds' | 'settings'>): string | null {
  const { odds } = decision;
  if (odds === null) return null;
  const band = plainPercent(decision.settings.minEffect);
  return `${probability(odds.better)} chance of more than +${band}, ${probability(odds.worse)} of less than −${band}; expected loss if shipped ${plainPercent(odds.risk)}`;
}

/** "a call by day 21 is 55% likely, by the plan's end (day 28) 81% (predictive)"; null without a forecast. */
export function forecastText(decision: Pick<Decision, 'forecast'>): string | null {
  const { forecast } = decision;
  if (forecast === null) return null;
  if (forecast.day >= forecast.planDay) return `a call by the plan's end (day ${forecast.planDay}) is ${chance(forecast.chanceByPlanEnd)} likely (predictive)`;
  return `a call by day ${forecast.day} is ${chance(forecast.chance)} likely, by the plan's end (day ${forecast.planDay}) ${chance(forecast.chanceByPlanEnd)} (predictive)`;
}

const VERDICT_WORDS = { worse: 'clearly worse', unclear: 'not clear', better: 'better', 'not-judged': 'not judged' } as const;

/** "revenue per visitor +1.0% (−5.8% to +8.3%): not clear" for each guardrail, or null without any. */
export function guardrailsText(decision: Pick<Decision, 'guardrails'>): string | null {
  if (decision.guardrails.length === 0) return null;
  return decision.guardrails
    .map((check) => (check.verdict === 'not-judged' ? check.text : `${check.text}: ${VERDICT_WORDS[check.verdict]}`))
    .join('; ');
}

/** The flags in words ("likely harmful — consider stopping: …; the lift is fading: …"), or null. */
export function flagsText(decision: Pick<Decision, 'flags'>): string | null {
  const parts = [decision.flags.harmful?.text, decision.flags.fading?.text].filter((text): text is string => text !== undefined);
  return parts.length === 0 ? null : parts.join('; ');
}

/** The goal's name in a sentence with its denominator: "conversion rate (conversions per visitor)". */
export function goalNameText(metric: GoalFigures['metric']): string {
  const name = rateName(metric);
  return name.charAt(0).toLowerCase() + name.slice(1);
}
