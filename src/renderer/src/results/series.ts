// The daily series of a test's results as chart points: cumulative and daily rates per side, by day index.
import type { SideStatistics, TestResults } from '../../../shared/api';
import { formatDayKey } from '../lib/format';

export type Point = { x: number; y: number };
export type SidePoints = { control: Point[]; variant: Point[] };

export type DailySeries = {
  /** Axis labels, one per day, in order. */
  labels: string[];
  cumulativeCvr: SidePoints;
  dailyCvr: SidePoints;
  cumulativeRpv: SidePoints;
  visitors: SidePoints;
};

type Totals = { visitors: number; conversions: number; revenue: number };

function sideSeries(days: SideStatistics[]) {
  const cumulativeCvr: Point[] = [];
  const dailyCvr: Point[] = [];
  const cumulativeRpv: Point[] = [];
  const visitors: Point[] = [];
  const total: Totals = { visitors: 0, conversions: 0, revenue: 0 };
  days.forEach((day, x) => {
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

/** Days in key order (ISO dates sort as text); rates are recomputed from counts so sums stay honest. */
export function dailySeries(daily: TestResults['daily']): DailySeries {
  const keys = Object.keys(daily).sort();
  const points = keys.flatMap((key) => {
    const point = daily[key];
    return point ? [point.performance] : [];
  });
  const control = sideSeries(points.map((p) => p.control));
  const variant = sideSeries(points.map((p) => p.variant));
  return {
    labels: keys.map(formatDayKey),
    cumulativeCvr: { control: control.cumulativeCvr, variant: variant.cumulativeCvr },
    dailyCvr: { control: control.dailyCvr, variant: variant.dailyCvr },
    cumulativeRpv: { control: control.cumulativeRpv, variant: variant.cumulativeRpv },
    visitors: { control: control.visitors, variant: variant.visitors },
  };
}
