// How long a test not launched yet needs at a store's traffic: "detecting a 5% lift on conversion
// rate needs about 24 days at this store's traffic", from the store's recent daily visitors and the
// goal's baseline there, with the same boundary the decision will use at the planned end.
import { upperQuantile } from './sequential';
import { finalBoundaryFor, TARGET_POWER } from './decide';
import type { GoalMetric } from './estimates';
import type { DecisionSettings, PlannerEstimate } from './schemas';
import { aboutDays, count, metricWords, plainPercent } from './words';

export type PlannerInput = {
  metric: GoalMetric;
  /** The goal's rate at the store (events per visitor, as a fraction); for RPV/AOV the orders per visitor. */
  eventRate: number;
  /** The goal's baseline value as shown (a rate, or money). */
  baseline: number;
  /** Visitors a day a test at this store gets, both sides together. */
  dailyVisitors: number;
  settings: DecisionSettings;
  /** The control's share of the traffic (0.5 for an even split). */
  controlShare?: number;
};

/** Variance of the log lift per (visitor on each side), before dividing by the visitors a side. */
function unitVariance(metric: GoalMetric, rate: number): number {
  if (metric === 'aov') return 1 / rate; // per visitor: 1 / (orders a visitor), as if order values varied as much as their mean
  return rate < 1 ? (1 - rate) / rate : 1 / rate;
}

/** Days a test needs to detect the minimum effect with 80% power; null when it has nothing to go by. */
export function plannedDaysNeeded(input: PlannerInput): number | null {
  const { metric, eventRate, dailyVisitors, settings } = input;
  if (!(eventRate > 0) || !(dailyVisitors > 0)) return null;
  const share = input.controlShare ?? 0.5;
  const alpha = 1 - settings.credibility;
  const effect = Math.log1p(settings.minEffect);
  const unit = unitVariance(metric, eventRate);
  const zBeta = upperQuantile(1 - TARGET_POWER);
  let days = settings.plannedDays;
  // The final boundary depends (weakly) on the plan's length: two rounds settle it.
  for (let round = 0; round < 3; round++) {
    // Beyond a year the boundary barely moves (and no plan is that long): a year's stands in.
    const boundary = finalBoundaryFor(Math.min(Math.max(days, settings.minRuntimeDays), 365), settings.minRuntimeDays, alpha);
    const neededInfo = ((boundary + zBeta) / effect) ** 2;
    // Var = unit / nA + unit / nB with nA = share · N, nB = (1 − share) · N.
    const visitors = neededInfo * unit * (1 / share + 1 / (1 - share));
    days = Math.max(settings.minRuntimeDays, Math.ceil(visitors / dailyVisitors));
    if (days > 3650) return days;
  }
  return days;
}

export function plannerEstimate(input: PlannerInput): PlannerEstimate {
  const days = plannedDaysNeeded(input);
  const { metric, settings } = input;
  const what = `detecting a ${plainPercent(settings.minEffect)} lift on ${metricWords(metric)}`;
  const text =
    days === null
      ? `No recent traffic or ${metricWords(metric)} at this store to plan by.`
      : `${what[0]?.toUpperCase()}${what.slice(1)} needs ${aboutDays(days)} at this store's traffic${days > settings.longestWaitDays ? `, longer than the longest wait of ${settings.longestWaitDays} days` : ''}.`;
  const approximate = metric === 'rpv' || metric === 'aov' ? ' Revenue goals: at least this long (the spread of order values is not known before launch).' : '';
  return {
    metric,
    baseline: input.baseline,
    dailyVisitors: input.dailyVisitors,
    minEffect: settings.minEffect,
    days,
    text: text + approximate,
    basis: `${count(input.dailyVisitors)} visitors a day (the store's tests, last 28 days), ${metricWords(metric)} baseline ${
      metric === 'rpv' || metric === 'aov' ? input.baseline.toFixed(2) : plainPercent(input.baseline)
    }, 80% power, credibility ${plainPercent(settings.credibility)}, daily checks from day ${settings.minRuntimeDays}.`,
  };
}
