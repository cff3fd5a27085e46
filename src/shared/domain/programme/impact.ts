// What a shipped winner is worth in a year, as an estimate: its goal lift shrunk toward the programme's
// mean (shrinkage.ts), times the store's recent traffic, times its revenue per visitor. Every
// assumption is stated in one line beside the figure.
import type { ShrunkLift } from './shrinkage';

export type YearlyImpact = {
  /** Money a year in the store's currency: central estimate and its 95% interval. */
  value: number;
  low: number;
  high: number;
  assumptions: string;
};

export const DAYS_A_YEAR = 365;

/**
 * lift × visitors a day × 365 × revenue per visitor. The goal's lift is read as a lift of revenue per
 * visitor, which holds for revenue goals and is an assumption for the others (said so).
 */
export function yearlyImpact(input: {
  lift: ShrunkLift;
  dailyVisitors: number;
  revenuePerVisitor: number;
  goalIsRevenue: boolean;
  shrunkFrom: number | null;
}): YearlyImpact {
  const base = input.dailyVisitors * DAYS_A_YEAR * input.revenuePerVisitor;
  const assumptions = [
    `${input.shrunkFrom === null ? 'lift as measured (too few concluded tests to shrink it)' : `lift shrunk toward the mean of ${input.shrunkFrom} concluded tests`}`,
    `${Math.round(input.dailyVisitors).toLocaleString('en-US')} visitors a day for a year`,
    `revenue per visitor ${input.revenuePerVisitor.toFixed(2)} (the store's currency)`,
    input.goalIsRevenue ? 'the goal is revenue' : "the goal's lift carried over to revenue per visitor (an assumption)",
    'an estimate, not a measurement',
  ].join('; ');
  return { value: input.lift.shrunk * base, low: input.lift.low * base, high: input.lift.high * base, assumptions };
}
