// chart.js with what the Learnings view's bar charts use registered (tree-shaken), and their shared options.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  LinearScale,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { theme } from '../lib/theme.svelte';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

export { Chart };

export type BarSeries = {
  label: string;
  /** A CSS custom property of the palette (read when drawn, so both themes hold). */
  colorVar: string;
  data: number[];
};

export type BarSpec = {
  labels: string[];
  /** One series per bar, or several stacked. */
  series: BarSeries[];
  /** Per-bar colours of a single series (overrides the series' colour), as CSS custom properties. */
  barColorVars?: string[];
  xTitle: string;
  yTitle: string;
};

export function barChartConfig(spec: BarSpec): ChartConfiguration<'bar', number[], string> {
  const muted = theme.color('--text-muted');
  const grid = theme.color('--border-faint');
  const font = { family: getComputedStyle(document.body).fontFamily, size: 11 };
  const stacked = spec.series.length > 1;
  const perBar = spec.barColorVars?.map((name) => theme.color(name));
  return {
    type: 'bar',
    data: {
      labels: spec.labels,
      datasets: spec.series.map((s) => ({
        label: s.label,
        data: s.data,
        backgroundColor: perBar ?? theme.color(s.colorVar),
        borderWidth: 0,
        borderRadius: 2,
        maxBarThickness: 28,
      })),
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: {
        legend: { display: false },
        tooltip: {
          mode: 'index',
          intersect: false,
          filter: (item) => (item.parsed.y ?? 0) !== 0 || !stacked,
        },
      },
      scales: {
        x: {
          stacked,
          grid: { display: false },
          title: { display: true, text: spec.xTitle, color: muted, font },
          ticks: { color: muted, font, maxRotation: 0, autoSkip: true, autoSkipPadding: 10 },
        },
        y: {
          stacked,
          beginAtZero: true,
          grid: { color: grid },
          title: { display: true, text: spec.yTitle, color: muted, font },
          ticks: { color: muted, font, precision: 0, maxTicksLimit: 5 },
        },
      },
    },
  };
}
