// The daily series of a test's results as chart points: cumulative and daily rates per side, by day.
// Date keys are placed by calendar day, so a day missing from a sparse map is a gap on the axis.
import type { SideStatistics, TestResults } from '#shared/api/index';
import type { Metric } from '#shared/domain/metrics';
import { formatDayKey } from '../lib/format';

export type Point = { x: number; y: number };
export type SidePoints = { control: Point[]; variant: Point[] };

export type DailySeries = {
  /** Axis labels, one per calendar day from the first to the last (days without data included). */
  labels: string[];
  /** Days that hold data; fewer than labels when the map has gaps. */
  daysWithData: number;
  /** The goal's figure (Splitbook's definition: rates per visitor in percent, money per visitor or order), cumulative and per day. */
  cumulativeGoal: SidePoints;
  dailyGoal: SidePoints;
  cumulativeRpv: SidePoints;
  visitors: SidePoints;
};

type Totals = { visitors: number; conversions: number; carts: number; clicks: number; orders: number; revenue: number };

/** The goal's figure of some counts, or null without its denominator: percent for rates, money as is. */
function goalValue(s: Totals, goal: Metric['rate']): number | null {
  switch (goal) {
    case 'cvr':
      return s.visitors > 0 ? (s.conversions / s.visitors) * 100 : null;
    case 'acr':
      return s.visitors > 0 ? (s.carts / s.visitors) * 100 : null;
    case 'ctr':
      return s.visitors > 0 ? (s.clicks / s.visitors) * 100 : null;
    case 'rpv':
      return s.visitors > 0 ? s.revenue / s.visitors : null;
    case 'aov':
      return s.orders > 0 ? s.revenue / s.orders : null;
  }
}

function sideSeries(days: SideStatistics[], xs: readonly number[], goal: Metric['rate']) {
  const cumulativeGoal: Point[] = [];
  const dailyGoal: Point[] = [];
  const cumulativeRpv: Point[] = [];
  const visitors: Point[] = [];
  const total: Totals = { visitors: 0, conversions: 0, carts: 0, clicks: 0, orders: 0, revenue: 0 };
  days.forEach((day, i) => {
    const x = xs[i] ?? i;
    total.visitors += day.visitors;
    total.conversions += day.conversions;
    total.carts += day.carts;
    total.clicks += day.clicks;
    total.orders += day.orders;
    total.revenue += day.revenue;
    visitors.push({ x, y: day.visitors });
    // A day without its denominator has no figure: leave a gap rather than draw a fake zero.
    const today = goalValue(day, goal);
    if (today !== null) dailyGoal.push({ x, y: today });
    const sofar = goalValue(total, goal);
    if (sofar !== null) cumulativeGoal.push({ x, y: sofar });
    if (total.visitors > 0) cumulativeRpv.push({ x, y: total.revenue / total.visitors });
  });
  return { cumulativeGoal, dailyGoal, cumulativeRpv, visitors };
}

const DAY_MS = 86_400_000;
const DATE_KEY = /^\d{4}-\d{2}-\d{2}$/;

/** Each key's position: days since the first when every key is a date, else its index (keys of unstated meaning). */
export function dayPositions(keys: readonly string[]): { xs: number[]; labels: string[] } {
  const first = keys[0];
  if (first === undefined || !keys.every((key) => DATE_KEY.test(key))) {
    return { xs: keys.map((_, i) => i), labels: keys.map(formatDayKey) };
  }
  const start = Date.parse(`${first}T00:00:00Z`);
  const xs = keys.map((key) => Math.round((Date.parse(`${key}T00:00:00Z`) - start) / DAY_MS));
  const span = (xs.at(-1) ?? 0) + 1;
  const labels = Array.from({ length: span }, (_, i) =>
    formatDayKey(new Date(start + i * DAY_MS).toISOString().slice(0, 10)),
  );
  return { xs, labels };
}

/**
 * Where a calendar day falls on the axis of `keys` (the series' sorted date keys): days since the
 * first key, whether or not that day holds data; null outside the series or for keys that are not
 * dates (their positions are their indexes: only a key itself can be placed).
 */
export function dayIndex(keys: readonly string[], day: string): number | null {
  const first = keys[0];
  const last = keys.at(-1);
  if (first === undefined || last === undefined) return null;
  if (!keys.every((key) => DATE_KEY.test(key)) || !DATE_KEY.test(day)) {
    const i = keys.indexOf(day);
    return i < 0 ? null : i;
  }
  if (day < first || day > last) return null;
  return Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / DAY_MS);
}

/** Daily data the API sends for days after the test's end (by its endAt, a UTC day): counted, and where the end is. */
export function afterEnd(
  keys: readonly string[],
  endAt: string | null,
): { endDay: string; days: number; x: number | null } | null {
  if (endAt === null || Number.isNaN(Date.parse(endAt))) return null;
  const endDay = new Date(endAt).toISOString().slice(0, 10);
  const days = keys.filter((key) => DATE_KEY.test(key) && key > endDay).length;
  return days === 0 ? null : { endDay, days, x: dayIndex(keys, endDay) };
}

/** Days in key order (ISO dates sort as text); figures are recomputed from counts so sums stay honest. */
export function dailySeries(daily: TestResults['daily'], goal: Metric['rate'] = 'cvr'): DailySeries {
  const keys = Object.keys(daily)
    .sort()
    .filter((key) => daily[key] !== undefined);
  const points = keys.flatMap((key) => {
    const point = daily[key];
    return point ? [point.performance] : [];
  });
  const { xs, labels } = dayPositions(keys);
  const control = sideSeries(
    points.map((p) => p.control),
    xs,
    goal,
  );
  const variant = sideSeries(
    points.map((p) => p.variant),
    xs,
    goal,
  );
  return {
    labels,
    daysWithData: keys.length,
    cumulativeGoal: { control: control.cumulativeGoal, variant: variant.cumulativeGoal },
    dailyGoal: { control: control.dailyGoal, variant: variant.dailyGoal },
    cumulativeRpv: { control: control.cumulativeRpv, variant: variant.cumulativeRpv },
    visitors: { control: control.visitors, variant: variant.visitors },
  };
}

/**
 * The call's markers on the charts: the day of the look that made a call ("Call, day 14"), and the end
 * of week 1 when the lift is flagged as fading.
 */
export function callMarkers(
  decision: { call: string; look: { day: number; date: string } | null; flags: { fading: unknown } } | null,
  keys: readonly string[],
): { x: number; label: string }[] {
  if (decision === null) return [];
  const marks: { x: number; label: string }[] = [];
  const settled = decision.call === 'ship' || decision.call === 'keep_control' || decision.call === 'no_difference';
  if (settled && decision.look !== null) {
    const x = dayIndex(keys, decision.look.date);
    if (x !== null) marks.push({ x, label: `Call, day ${decision.look.day}` });
  }
  const first = keys[0];
  if (decision.flags.fading !== null && first !== undefined && DATE_KEY.test(first)) {
    const weekEnd = new Date(Date.parse(`${first}T00:00:00Z`) + 6 * DAY_MS).toISOString().slice(0, 10);
    const x = dayIndex(keys, weekEnd);
    if (x !== null) marks.push({ x, label: 'Week 1 ends: the lift fades' });
  }
  return marks;
}
