// The call once the looks are walked: a test still within its plan (keep running, with its odds, or
// cannot conclude), a settled one (ship, keep the control, no difference), and the checks they read.
import { dateOfDayNumber } from '../statistics/daily';
import { REVENUE_MIN_DAYS } from '../statistics/revenue';
import { eventsName, eventsOf, estimateOf, sumsOf, type Estimate, type GoalMetric } from './estimates';
import { conditionalPower, HOPELESS_POWER, predictiveChances } from './forecast';
import { checkGuardrail, guardrailsFor, worseWords } from './guardrails';
import {
  alwaysValidBoundary,
  finalBoundaryFor,
  informationOn,
  insideBand,
  intervalAt,
  projectLooks,
  recentDailyVisitors,
  RECENT_DAYS,
  TARGET_POWER,
  type DecisionDay,
  type Look,
  type Settled,
  type Walked,
} from './looks';
import {
  CALL_WORDS,
  type Decision,
  type DecisionCall,
  type DecisionFlags,
  type DecisionForecast,
  type DecisionSettings,
  type GuardrailCheck,
} from './schemas';
import {
  aboutDays,
  chance,
  count,
  dateWords,
  days as dayCount,
  metricWords,
  plainPercent,
  signedPercent,
} from './words';
import { flagsText, sequentialSoFar, guardsSoFar, describe, lookOf, priorWords, capitalise } from './call-words';
import { type Context, adjustedLift } from './context';

type RunningParts = {
  lastLook: Look | null;
  guardrails: GuardrailCheck[];
  worse: GuardrailCheck | null;
  flagged: Context['base'];
  detectText: string;
  neededDays: number | null;
};

/** A test still within its plan: keep running with the odds of a call, or cannot conclude when a call is out of reach. */
export function running(context: Context, parts: RunningParts): Decision {
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
export function settledCall(context: Context, settled: Settled, extra = ''): Decision {
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
export function guardrailChecks(context: Context, look: Look, boundary: number): GuardrailCheck[] {
  const metrics = guardrailsFor(context.metric, look.settings.guardrails);
  const days = context.walked.seen.slice(0, look.through);
  return metrics.map((metric) => checkGuardrail(metric, look.control, look.variant, days, boundary));
}

/** The look's boundary, or the last finite one before it (a look with no budget left has none). */
export function lookBoundary(walked: Walked, look: Look): number {
  if (Number.isFinite(look.boundary)) return look.boundary;
  const finite = [...walked.looks].reverse().find((l) => l.dayNumber <= look.dayNumber && Number.isFinite(l.boundary));
  return finite?.boundary ?? Infinity;
}

/** An ended test before its plan: one always-valid check on the budget left, or null when it settles nothing. */
export function endedCheck(walked: Walked, last: Look, settings: DecisionSettings): Settled | null {
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
export function currentEstimate(metric: GoalMetric, days: readonly DecisionDay[]): Estimate | null {
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
export function harmfulFlag(context: Context, worse: GuardrailCheck | null): DecisionFlags['harmful'] {
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
