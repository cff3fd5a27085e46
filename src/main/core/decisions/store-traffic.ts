// What the planner goes by at a store: the daily visitors a test there typically gets and the goal's
// baseline, both from the store's own tests over the last 28 days of their daily data.
import { TestResults } from '#shared/api/index';
import {
  addSide,
  EMPTY_SUMS,
  eventsOf,
  valueOf,
  type GoalMetric,
  type SideSums,
} from '#shared/domain/decisions/estimates';
import { DAY_MS, dailySeries } from '#shared/domain/statistics/daily';
import { plannerEstimate } from '#shared/domain/decisions/planner';
import type { DecisionSettings, PlannerEstimate } from '#shared/domain/decisions/schemas';
import { metricOfGoal } from '#shared/domain/metrics';
import { median } from '../review/portfolio';
import { readPackedResults } from '../db/cache/decisions';
import { trafficCandidates } from '../db/cache/results';
import type { Db } from '../db/types';
import { unpackJson } from '../db/values';

/** The days of data the planner goes by, ending with the last day any of the store's tests has. */
export const TRAFFIC_DAYS = 28;

export type StoreTraffic = {
  /** The median over the store's tests of their mean visitors a day (both sides) in the window. */
  dailyVisitors: number;
  /** The control sides' totals of those tests, pooled: the baseline of any goal. */
  control: SideSums;
  /** How many tests it comes from. */
  tests: number;
};

/**
 * The store's traffic, or null when no test of it has daily data. A running test's last day is still
 * in progress, so it is left out, as the decision leaves it out.
 */
export function storeTraffic(db: Db, storeId: string): StoreTraffic | null {
  const candidates = trafficCandidates(db, storeId);
  const latest = Math.max(...candidates.map((c) => Date.parse(c.lastAt)).filter(Number.isFinite));
  if (!Number.isFinite(latest)) return null;
  // Only tests that had data near the end of the window are read; a week's slack for the end dates.
  const cutoff = latest - (TRAFFIC_DAYS + 7) * DAY_MS;
  const tests: { days: { dayNumber: number; visitors: number }[]; control: SideSums }[] = [];
  for (const candidate of candidates) {
    if (!(Date.parse(candidate.lastAt) >= cutoff)) continue;
    const packed = readPackedResults(db, storeId, candidate.id);
    if (!packed) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(unpackJson(packed));
    } catch {
      continue;
    }
    const results = TestResults.safeParse(raw);
    if (!results.success) continue;
    const { days } = dailySeries(results.data.daily);
    const complete = candidate.status === 'active' ? days.slice(0, -1) : days;
    tests.push({
      days: complete.map((day) => ({
        dayNumber: day.dayNumber,
        visitors: day.control.visitors + day.variant.visitors,
      })),
      control: addSide(EMPTY_SUMS, results.data.control),
    });
  }
  const lastDay = Math.max(...tests.flatMap((test) => test.days.map((day) => day.dayNumber)));
  if (!Number.isFinite(lastDay)) return null;
  const firstDay = lastDay - TRAFFIC_DAYS + 1;
  const means: number[] = [];
  let control = EMPTY_SUMS;
  for (const test of tests) {
    const inWindow = test.days.filter((day) => day.dayNumber >= firstDay);
    if (inWindow.length === 0) continue;
    means.push(inWindow.reduce((sum, day) => sum + day.visitors, 0) / inWindow.length);
    control = addSide(control, test.control);
  }
  const dailyVisitors = median(means);
  if (dailyVisitors === null) return null;
  return { dailyVisitors, control, tests: means.length };
}

/** The goal's rate per visitor (orders for revenue goals) and its baseline value at the store; null without one. */
export function goalBaseline(
  traffic: StoreTraffic,
  metric: GoalMetric,
): { eventRate: number; baseline: number } | null {
  const { control } = traffic;
  if (!(control.visitors > 0)) return null;
  // eventsOf counts orders for the revenue goals: the planner's event rate is orders per visitor there.
  const events = eventsOf(control, metric);
  const baseline = valueOf(control, metric);
  const eventRate = events / control.visitors;
  if (baseline === null || !(eventRate > 0)) return null;
  return { eventRate, baseline };
}

/**
 * The planner's estimate for a test on `goal` at a store whose traffic was read once (the backlog asks
 * for many goals); null for a goal Splitbook does not know, or a store without traffic or the goal's baseline.
 */
export function plannerAt(
  traffic: StoreTraffic | null,
  goal: string,
  settings: DecisionSettings,
): PlannerEstimate | null {
  const metric = metricOfGoal(goal)?.rate ?? null;
  if (metric === null || traffic === null) return null;
  const baseline = goalBaseline(traffic, metric);
  if (baseline === null) return null;
  return plannerEstimate({ metric, ...baseline, dailyVisitors: traffic.dailyVisitors, settings });
}
