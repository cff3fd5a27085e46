// The daily series of a test's results as chart points: cumulative and daily rates per side, by day.
// Date keys are placed by calendar day, so a day missing from a sparse map is a gap on the axis.
import type { SideStatistics, TestResults } from '#shared/api/index';
import { formatDayKey } from '../lib/format';

export type Point = { x: number; y: number };
export type SidePoints = { control: Point[]; variant: Point[] };

export type DailySeries = {
  /** Axis labels, one per calendar day from the first to the last (days without data included). */
  labels: string[];
  /** Days that hold data; fewer than labels when the map has gaps. */
  daysWithData: number;
  cumulativeCvr: SidePoints;
  dailyCvr: SidePoints;
  cumulativeRpv: SidePoints;
  visitors: SidePoints;
};

type Totals = { visitors: number; conversions: number; revenue: number };

function sideSeries(days: SideStatistics[], xs: readonly number[]) {
  const cumulativeCvr: Point[] = [];
  const dailyCvr: Point[] = [];
  const cumulativeRpv: Point[] = [];
  const visitors: Point[] = [];
  const total: Totals = { visitors: 0, conversions: 0, revenue: 0 };
  days.forEach((day, i) => {
    const x = xs[i] ?? i;
    total.visitors += day.visitors;
    total.conversions += day.conversions;
    total.revenue += day.revenue;
    visitors.push({ x, y: day.visitors });
    // A day without visitors has no rate: leave a gap rather than draw a fake zero.
    if (day.visitors > 0) dailyCvr.push({ x, y: (day.conversions / day.visitors) * 100 });
    if (total.visitors > 0) {
      cumulativeCvr.push({ x, y: (total.conversions / total.visitors) * 100 });
      cumulativeRpv.push({ x, y: total.revenue / total.visitors });
    }
  });
  return { cumulativeCvr, dailyCvr, cumulativeRpv, visitors };
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

/** Days in key order (ISO dates sort as text); rates are recomputed from counts so sums stay honest. */
export function dailySeries(daily: TestResults['daily']): DailySeries {
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
  );
  const variant = sideSeries(
    points.map((p) => p.variant),
    xs,
  );
  return {
    labels,
    daysWithData: keys.length,
    cumulativeCvr: { control: control.cumulativeCvr, variant: variant.cumulativeCvr },
    dailyCvr: { control: control.dailyCvr, variant: variant.dailyCvr },
    cumulativeRpv: { control: control.cumulativeRpv, variant: variant.cumulativeRpv },
    visitors: { control: control.visitors, variant: variant.visitors },
  };
}
