// zod schemas of the statistics module's output: the single source of its types, ready for the bridge.
// Lifts and lift intervals are fractions (0.05 = +5%); rates and expected losses are proportions (0..1).
import { z } from 'zod';

export const BINARY_RATES = ['cvr', 'acr', 'ctr'] as const;
export const BinaryRate = z.enum(BINARY_RATES);
export type BinaryRate = z.infer<typeof BinaryRate>;

export const BinaryMetricAnalysis = z.object({
  /** P(the variant's rate is higher than the control's). */
  pWin: z.number(),
  /** Rate lost on average by shipping the variant if it is worse: E[max(control - variant, 0)]. */
  expectedLossVariant: z.number(),
  /** Rate lost on average by keeping the control if the variant is better. */
  expectedLossControl: z.number(),
  liftCiLow: z.number(),
  liftCiHigh: z.number(),
  /** variant rate / control rate - 1, from the counts; null when the control rate is 0. */
  observedLift: z.number().nullable(),
  controlCount: z.number(),
  controlTrials: z.number(),
  variantCount: z.number(),
  variantTrials: z.number(),
  method: z.enum(['exact', 'quadrature']),
});
export type BinaryMetricAnalysis = z.infer<typeof BinaryMetricAnalysis>;

export const PerMetric = z.object({
  cvr: BinaryMetricAnalysis.nullable(),
  acr: BinaryMetricAnalysis.nullable(),
  ctr: BinaryMetricAnalysis.nullable(),
});
export type PerMetric = z.infer<typeof PerMetric>;

export const RevenueLift = z.object({
  metric: z.enum(['rpv', 'aov']),
  control: z.number(),
  variant: z.number(),
  observedLift: z.number(),
  liftCiLow: z.number(),
  liftCiHigh: z.number(),
  days: z.number(),
  /** Degrees of freedom the interval was read with (Student's t; see revenue.ts). */
  df: z.number(),
  approximate: z.literal(true),
});
export type RevenueLift = z.infer<typeof RevenueLift>;

export const RevenueAnalysis = z.object({
  approximate: z.literal(true),
  explanation: z.string(),
  rpv: RevenueLift.nullable(),
  aov: RevenueLift.nullable(),
});
export type RevenueAnalysis = z.infer<typeof RevenueAnalysis>;

export const SrmAnalysis = z.object({
  judged: z.boolean(),
  reason: z.string().nullable(),
  chiSquare: z.number().nullable(),
  pValue: z.number().nullable(),
  mismatch: z.boolean(),
  expectedControlShare: z.number().nullable(),
  observedControlShare: z.number().nullable(),
  /** First day from which the cumulative split stays mismatched, 'YYYY-MM-DD', or null. */
  onsetDate: z.string().nullable(),
});
export type SrmAnalysis = z.infer<typeof SrmAnalysis>;

export const ALERT_CODES = [
  'early-significance',
  'implausible-lift',
  'sample-ratio-mismatch',
  'daily-totals-mismatch',
  'missing-days',
  'probability-model-differs',
  'probabilities-do-not-sum-to-one',
  'contradictory-counts',
] as const;
export const AlertCode = z.enum(ALERT_CODES);
export type AlertCode = z.infer<typeof AlertCode>;

export const Alert = z.object({
  code: AlertCode,
  severity: z.enum(['warning', 'info']),
  message: z.string(),
});
export type Alert = z.infer<typeof Alert>;

export const GoalRate = z.enum(['cvr', 'rpv', 'aov', 'acr', 'ctr']);

export const TestAnalysis = z.object({
  /** The rate the test's goal measures, or null for a goal this version does not know. */
  goalMetric: GoalRate.nullable(),
  perMetric: PerMetric,
  /** Null when neither RPV nor AOV can be estimated (see REVENUE_EXPLANATION). */
  revenue: RevenueAnalysis.nullable(),
  srm: SrmAnalysis,
  alerts: z.array(Alert),
});
export type TestAnalysis = z.infer<typeof TestAnalysis>;

export const SegmentAnalysis = z.object({
  mobile: PerMetric.nullable(),
  desktop: PerMetric.nullable(),
  new: PerMetric.nullable(),
  returning: PerMetric.nullable(),
});
export type SegmentAnalysis = z.infer<typeof SegmentAnalysis>;

export const OverTimePoint = z.object({
  date: z.string(),
  controlCount: z.number(),
  controlTrials: z.number(),
  variantCount: z.number(),
  variantTrials: z.number(),
  pWin: z.number(),
  liftCiLow: z.number(),
  liftCiHigh: z.number(),
});
export type OverTimePoint = z.infer<typeof OverTimePoint>;
