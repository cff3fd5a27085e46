// zod schemas of decisions: the settings a call is made with, and the call itself with every figure
// it used. The single source of their types, ready for the bridge, the cache and the reports.
import { z } from 'zod';
import { TestStatus } from '../../api';
import { GoalRate } from '../statistics/schemas';

/** The stable values of a call, as the CSV's `decision` column and the CLI's --json print them. */
export const DECISION_CALLS = [
  'ship',
  'keep_control',
  'no_difference',
  'keep_running',
  'cannot_conclude',
  'check_data',
  'paused',
] as const;
export const DecisionCall = z.enum(DECISION_CALLS);
export type DecisionCall = z.infer<typeof DecisionCall>;

/** The calls that need the consultant now (everything but "keep running" and "paused"). */
export const CALLS_NEEDING_ACTION: readonly DecisionCall[] = [
  'ship',
  'keep_control',
  'no_difference',
  'cannot_conclude',
  'check_data',
];

/**
 * The order calls are listed, sorted and offered in everywhere (the Decisions view, the test list's
 * Call column, the filter): those needing the consultant first, keep running, then paused.
 */
export const CALL_ORDER: readonly DecisionCall[] = [
  'ship',
  'keep_control',
  'check_data',
  'no_difference',
  'cannot_conclude',
  'keep_running',
  'paused',
];

/** Whether a call needs the consultant now (every call but keep running and paused). */
export function needsCall(call: DecisionCall): boolean {
  return CALLS_NEEDING_ACTION.includes(call);
}

/** Each call in words a client understands. */
export const CALL_WORDS: Record<DecisionCall, string> = {
  ship: 'Ship the variant',
  keep_control: 'Keep the control',
  no_difference: 'No meaningful difference',
  keep_running: 'Keep running',
  cannot_conclude: 'Cannot conclude at this traffic',
  check_data: 'Check the data first',
  paused: 'Paused',
};

/**
 * The metrics a call also watches besides its goal: "default" is revenue per visitor for every goal
 * but revenue per visitor itself, and conversion rate too for an average-order-value goal
 * (guardrailsFor in guardrails.ts).
 */
export const GuardrailChoice = z.union([z.literal('default'), z.array(GoalRate).max(5)]);
export type GuardrailChoice = z.infer<typeof GuardrailChoice>;

export const DecisionSettings = z.object({
  /** The credibility a side must win with: the error budget is 1 − this, two-sided. */
  credibility: z.number().min(0.8).max(0.999),
  /** The smallest relative lift worth acting on (0.05 = ±5%). */
  minEffect: z.number().min(0.005).max(0.5),
  /** No call before this many days of data (whole weeks smooth out weekdays). */
  minRuntimeDays: z.number().int().min(1).max(60),
  /** No call before each side has this many of the goal's events (conversions, carts, clicks or orders). */
  minConversions: z.number().int().min(0).max(100_000),
  /** A call that would take longer than this from the start is "cannot conclude". */
  longestWaitDays: z.number().int().min(7).max(365),
  /** A test's planned length when it has no automaticallyEndAt. */
  plannedDays: z.number().int().min(7).max(365),
  /** The guardrail metrics: a ship is turned into "keep the control" when one is clearly worse. */
  guardrails: GuardrailChoice,
});
export type DecisionSettings = z.infer<typeof DecisionSettings>;

export const DEFAULT_DECISION_SETTINGS: DecisionSettings = {
  credibility: 0.95,
  minEffect: 0.05,
  minRuntimeDays: 7,
  minConversions: 100,
  longestWaitDays: 90,
  plannedDays: 28,
  guardrails: 'default',
};

/** A change of some decision settings; `null` clears a per-store override. */
export const DecisionSettingsPatch = DecisionSettings.partial().strict();
export type DecisionSettingsPatch = z.infer<typeof DecisionSettingsPatch>;

/** Where a test's planned length comes from. */
export const PlanSource = z.enum(['automatically-end-at', 'test', 'store', 'setting']);
export type PlanSource = z.infer<typeof PlanSource>;

/**
 * A change of the settings a test's call is made with, made after the test had data: from `from` on,
 * the old plan's spending stops and only an always-valid check on the budget left can make a call.
 */
export const DecisionChange = z.object({
  /** 'YYYY-MM-DD' of the first day judged with the new settings. */
  from: z.string(),
  /** What changed, in words: "planned length 28 → 21 days (the store's setting)". */
  text: z.string(),
});
export type DecisionChange = z.infer<typeof DecisionChange>;

export const DecisionPlan = z.object({
  plannedDays: z.number().int(),
  source: PlanSource,
  /** 'YYYY-MM-DD' of the planned last day. */
  endDate: z.string().nullable(),
  /** Days the plan would need to detect the minimum effect with 80% power at the test's traffic, when known. */
  neededDays: z.number().nullable(),
  tooShort: z.boolean(),
  /** The smallest lift (fraction) the plan detects with 80% power at the test's traffic, when known. */
  detectable: z.number().nullable(),
  /** Settings changes after the test had data, oldest first (recorded, never applied to past looks). */
  changes: z.array(DecisionChange),
});
export type DecisionPlan = z.infer<typeof DecisionPlan>;

export const GuardId = z.enum(['runtime', 'events', 'sample-ratio', 'counts', 'daily-totals']);
export const Guard = z.object({
  id: GuardId,
  ok: z.boolean(),
  /** "7 of 7 days", "1,204 and 1,353 conversions (100 needed)". */
  text: z.string(),
});
export type Guard = z.infer<typeof Guard>;

/**
 * Splitbook's current figures of the goal metric, from the sides' totals: the one lift, interval and
 * chance to win every surface shows for the test now (the list, Results, Decisions, CSV, reports).
 */
export const GoalFigures = z.object({
  metric: GoalRate,
  control: z.number().nullable(),
  variant: z.number().nullable(),
  /** Relative lift, fraction. */
  lift: z.number().nullable(),
  /** 95% interval of the lift (credible for rates; approximate for revenue, none before 7 days of data). */
  liftLow: z.number().nullable(),
  liftHigh: z.number().nullable(),
  /** P(variant beats control) on the goal; null where the interval is withheld. */
  pWin: z.number().nullable(),
  /** True for revenue goals: a normal approximation on day-to-day spread (see REVENUE_DECISION_MODEL). */
  approximate: z.boolean(),
});
export type GoalFigures = z.infer<typeof GoalFigures>;

/**
 * What a test's call is made from that no setting changes (decide.ts `decisionFacts`): the goal, its
 * figures and the data checks, worked out once when the results are written and kept in the cache, so
 * a settings change makes every call again from these alone. The completed days' counts go with them,
 * packed beside this JSON (db/decision-facts.ts).
 */
export const DecisionFacts = z.object({
  /** The test's goal as sent; `metric` is null for a goal Splitbook does not know. */
  goal: z.string(),
  metric: GoalRate.nullable(),
  status: TestStatus,
  automaticallyEndAt: z.string().nullable(),
  /** Day number (days since 1970-01-01) of the start, or of the first day of data. */
  startDay: z.number().nullable(),
  goalFigures: GoalFigures.nullable(),
  /** The sample-ratio, counts and daily-totals guards, in that order. */
  dataGuards: z.array(Guard),
  srmMismatch: z.boolean(),
  /** The counts that cannot be true, in words. */
  impossible: z.array(z.string()),
  dailyAlerts: z.boolean(),
});
export type DecisionFacts = z.infer<typeof DecisionFacts>;

export const DecisionMethod = z.enum(['group-sequential', 'always-valid', 'none']);
export type DecisionMethod = z.infer<typeof DecisionMethod>;

/** The statistic and boundary of the look that made (or last checked) the call. */
export const DecisionLook = z.object({
  /** Day of the test the look is at (1 = the start day), and its date. */
  day: z.number().int(),
  date: z.string(),
  /** Relative lift and its interval at that look, valid under daily checks. Fractions. */
  lift: z.number(),
  low: z.number(),
  high: z.number(),
  /**
   * At a group sequential call, the lift adjusted for stopping at the first crossing (the median-
   * unbiased estimate under the stage-wise ordering); null where none applies. `lift` is the naive one.
   */
  adjustedLift: z.number().nullable(),
  z: z.number(),
  /** |z| needed at that look; null when no budget was left to spend there. */
  boundary: z.number().nullable(),
  infoFraction: z.number(),
  /** Error budget spent through that look, and the whole budget. */
  spent: z.number(),
  alpha: z.number(),
  controlEvents: z.number(),
  variantEvents: z.number(),
  controlVisitors: z.number(),
  variantVisitors: z.number(),
});
export type DecisionLook = z.infer<typeof DecisionLook>;

/** A guardrail metric judged at the call's look with the call's boundary. */
export const GuardrailCheck = z.object({
  metric: GoalRate,
  /** worse: its interval lies below zero; unclear: it holds zero; better: above zero; not-judged: no estimate. */
  verdict: z.enum(['worse', 'unclear', 'better', 'not-judged']),
  lift: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  /** "revenue per visitor −16.0% (−24.0% to −8.0%)". */
  text: z.string(),
});
export type GuardrailCheck = z.infer<typeof GuardrailCheck>;

/**
 * Figures beside a sequential call that cannot contradict it, from the current totals (a normal
 * posterior of the log lift, flat prior): the chances the variant is better, or worse, by more than the
 * minimum effect, and the expected loss of shipping it (the lift given up where it is worse, a fraction).
 */
export const DecisionOdds = z.object({
  better: z.number(),
  worse: z.number(),
  risk: z.number(),
});
export type DecisionOdds = z.infer<typeof DecisionOdds>;

/** When a call is expected, and its odds: predictive power from the data so far (see forecast.ts). */
export const DecisionForecast = z.object({
  /** Day of the test by which a call is more likely than not (or the plan's last day), and its date. */
  day: z.number().int(),
  date: z.string(),
  /** Chance of a call (ship, keep the control or no difference) by that day, and by the plan's end. */
  chance: z.number(),
  planDay: z.number().int(),
  chanceByPlanEnd: z.number(),
  method: z.literal('predictive'),
});
export type DecisionForecast = z.infer<typeof DecisionForecast>;

/** Things the consultant should look at; a flag never changes the call. */
export const DecisionFlags = z.object({
  /** The lift fades: "the lift is fading: +15.0% in week 1, +2.0% since". */
  fading: z.object({ early: z.number(), since: z.number(), text: z.string() }).nullable(),
  /** Clearly losing before a call can be made: "likely harmful — consider stopping". */
  harmful: z.object({ text: z.string() }).nullable(),
});
export type DecisionFlags = z.infer<typeof DecisionFlags>;

export const Decision = z.object({
  call: DecisionCall,
  /** The call in words: "Ship the variant", "Keep running, about 9 days". */
  words: z.string(),
  /** One line of why, with the figures. */
  reason: z.string(),
  /** For keep_running: days until a call is expected (or the plan ends). */
  daysToDecision: z.number().int().nullable(),
  /** 'YYYY-MM-DD' of that expected call. */
  decisionDate: z.string().nullable(),
  method: DecisionMethod,
  /** One line naming the figures and settings the call used. */
  basis: z.string(),
  guards: z.array(Guard),
  look: DecisionLook.nullable(),
  plan: DecisionPlan.nullable(),
  goal: GoalFigures.nullable(),
  guardrails: z.array(GuardrailCheck),
  odds: DecisionOdds.nullable(),
  forecast: DecisionForecast.nullable(),
  flags: DecisionFlags,
  settings: DecisionSettings,
  /** The version of the rules that made the call: a change recomputes cached calls. */
  version: z.number().int(),
});
export type Decision = z.infer<typeof Decision>;

/** A plan for a test not launched yet: how long it needs at the store's traffic. */
export const PlannerEstimate = z.object({
  metric: GoalRate,
  /** The goal's baseline (control) value at the store: a rate (fraction) or money. */
  baseline: z.number(),
  /** Visitors a day a test at this store gets (both sides), from the last 28 days. */
  dailyVisitors: z.number(),
  minEffect: z.number(),
  /** Days needed to detect the minimum effect with 80% power; null when the store has no traffic to go by. */
  days: z.number().nullable(),
  text: z.string(),
  basis: z.string(),
});
export type PlannerEstimate = z.infer<typeof PlannerEstimate>;
