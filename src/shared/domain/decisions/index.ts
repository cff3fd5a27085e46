// Decisions: one call per test on its goal (decide.ts; what it is made from in facts.ts, the call once the
// looks are walked in settle.ts, its words in call-words.ts), its looks (looks.ts), the error budget behind
// them (sequential.ts), what the figures say beyond the call (forecast.ts, forward.ts), guardrails and
// fading lifts, the rate readings learnt per store (rate-readings.ts), and the planner for tests not
// launched yet.
export * from './schemas';
export {
  decideTest,
  decisionFacts,
  decideFrom,
  goalFigures,
  finalBoundaryFor,
  DECISION_RULES_VERSION,
  TARGET_POWER,
  RECENT_DAYS,
} from './decide';
export type { DecisionInput, DecisionChoice, DecisionData, DecisionDay, SettingsChange } from './decide';
export { REVENUE_DECISION_MODEL, type GoalMetric, type SideSums } from './estimates';
export { guardrailsFor } from './guardrails';
export { FORECAST_PRIOR, oddsOf } from './forecast';
export { plannerEstimate, plannedDaysNeeded, type PlannerInput } from './planner';
export * from './rate-readings';
export {
  SequentialBoundaries,
  obrienFlemingSpent,
  mixtureHalfWidth,
  mixtureTuning,
  informationFor,
  normalCdf,
  normalTail,
  upperQuantile,
} from './sequential';
export { aboutDays, dateWords, signedPercent } from './words';
