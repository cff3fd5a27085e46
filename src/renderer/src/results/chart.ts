// chart.js with only what the results charts use registered (tree-shaken), and their shared options.
import {
  Chart,
  Decimation,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import annotationPlugin from 'chartjs-plugin-annotation';
import { theme } from '../lib/theme.svelte';
import type { SidePoints } from './series';

Chart.register(
  LineController,
  LineElement,
  PointElement,
  LinearScale,
  Tooltip,
  Decimation,
  annotationPlugin,
);

export { Chart };

/** Longer series than this are thinned (LTTB) to about this many points per side. */
const DECIMATE_TO = 150;

export type LineChartSpec = {
  /** Date label of each day index on the x axis. */
  labels: string[];
  points: SidePoints;
  yTitle: string;
  formatY: (value: number) => string;
  beginAtZero?: boolean;
  /** The store's dated annotations inside the series, as vertical markers at a day index. */
  markers?: { x: number; label: string }[];
};

/** The store's annotations as dashed vertical lines with their label at the top (every results chart). */
export function markerAnnotations(
  spec: { markers?: { x: number; label: string }[] },
  color: string,
  text: string,
) {
  return Object.fromEntries(
    (spec.markers ?? []).map((marker, i) => [
      `marker${i}`,
      {
        type: 'line' as const,
        xMin: marker.x,
        xMax: marker.x,
        borderColor: color,
        borderWidth: 1,
        borderDash: [2, 3],
        label: {
          display: true,
          content: marker.label,
          position: 'start' as const,
          backgroundColor: 'transparent',
          color: text,
          font: { size: 10 },
          padding: 2,
        },
      },
    ]),
  );
}

/**
 * A line chart of control against variant over days. The x axis is linear in day index (decimation
 * needs a linear axis, and a time axis would need a date adapter), labelled with the formatted dates.
 */
export function lineChartConfig(
  spec: LineChartSpec,
): ChartConfiguration<'line', { x: number; y: number }[]> {
  const control = theme.color('--control');
  const variant = theme.color('--variant');
  const muted = theme.color('--text-muted');
  const grid = theme.color('--border-faint');
  const font = { family: getComputedStyle(document.body).fontFamily, size: 11 };
  const dataset = (
    label: string,
    color: string,
    data: { x: number; y: number }[],
    dash: number[],
  ) => ({
    label,
    data,
    borderColor: color,
    backgroundColor: color,
    borderWidth: 1.75,
    borderDash: dash,
    pointRadius: 0,
    pointHoverRadius: 3,
    tension: 0,
    // A missing day (a sparse daily map) breaks the line: points more than one day apart are not joined.
    spanGaps: 1,
  });
  const last = Math.max(0, spec.labels.length - 1);
  return {
    type: 'line',
    data: {
      datasets: [
        dataset('Control', control, spec.points.control, []),
        // The variant is also dashed, so the two sides differ by more than colour.
        dataset('Variant', variant, spec.points.variant, [5, 3]),
      ],
    },
    options: {
      animation: false,
      parsing: false,
      normalized: true,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'index', intersect: false },
      plugins: {
        decimation: {
          enabled: true,
          algorithm: 'lttb',
          samples: DECIMATE_TO,
          threshold: DECIMATE_TO,
        },
        // The legend is HTML beside the title (LineChart.svelte), the same in every chart.
        legend: { display: false },
        annotation: { annotations: markerAnnotations(spec, muted, theme.color('--text')) },
        tooltip: {
          callbacks: {
            title: (items) => {
              const x = items[0]?.parsed.x;
              return typeof x === 'number' ? (spec.labels[Math.round(x)] ?? '') : '';
            },
            label: (item) => `${item.dataset.label ?? ''}: ${spec.formatY(item.parsed.y ?? 0)}`,
          },
        },
      },
      scales: {
        x: {
          type: 'linear',
          min: 0,
          max: last,
          grid: { color: grid },
          title: { display: true, text: 'Date (UTC)', color: muted, font },
          ticks: {
            color: muted,
            font,
            maxTicksLimit: 7,
            maxRotation: 0,
            // Labels never touch: ticks are thinned to what the width holds.
            autoSkip: true,
            autoSkipPadding: 18,
            precision: 0,
            // No extra tick at the axis' ends: the last day's label landed on the nice tick before it.
            includeBounds: false,
            callback: (value) =>
              Number.isInteger(value) ? (spec.labels[Number(value)] ?? '') : '',
          },
        },
        y: {
          beginAtZero: spec.beginAtZero ?? false,
          grid: { color: grid },
          title: { display: true, text: spec.yTitle, color: muted, font },
          ticks: {
            color: muted,
            font,
            maxTicksLimit: 6,
            callback: (value) => spec.formatY(Number(value)),
          },
        },
      },
    },
  };
}
