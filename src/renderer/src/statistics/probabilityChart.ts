// chart.js config of "Probability to win over time": Splitbook's cumulative P(win) and the lift interval band.
import { CategoryScale, Filler, type ChartConfiguration } from 'chart.js';
import { Chart, markerAnnotations } from '../results/chart';
import type { OverTimeSeries } from './overTimeSeries';
import { formatDayKey, formatSignedPercent } from '../lib/format';
import { theme } from '../lib/theme.svelte';

// One chart.js for the app: results/chart.ts registers what every chart shares (its global plugins
// included, so no chart ever exists before them); this chart adds its category axis and band fill.
Chart.register(CategoryScale, Filler);

export { Chart };

/** With a hex colour from the theme, the same colour at `alpha` for the band's fill. */
function translucent(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{6})$/i.exec(color)?.[1];
  if (!hex) return color;
  const n = parseInt(hex, 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

export function probabilityChartConfig(
  series: OverTimeSeries,
  /** The store's dated annotations inside the series, at their day's index, as on the other charts. */
  markers: { x: number; label: string }[] = [],
): ChartConfiguration<'line', (number | null)[], string> {
  const line = theme.color('--text');
  const variant = theme.color('--variant');
  const muted = theme.color('--text-muted');
  const grid = theme.color('--border-faint');
  const font = { family: getComputedStyle(document.body).fontFamily, size: 11 };
  const band = translucent(variant, theme.dark ? 0.28 : 0.16);
  const common = { pointRadius: 0, pointHoverRadius: 3, tension: 0, spanGaps: false } as const;
  return {
    type: 'line',
    data: {
      labels: series.dates,
      datasets: [
        // The band: its low edge, then its high edge filled down to it ('-1'), on the lift axis.
        {
          ...common,
          label: 'Lift, 95% low',
          data: series.low,
          yAxisID: 'lift',
          borderColor: band,
          borderWidth: 1,
          backgroundColor: band,
          fill: false,
        },
        {
          ...common,
          label: 'Lift, 95% high',
          data: series.high,
          yAxisID: 'lift',
          borderColor: band,
          borderWidth: 1,
          backgroundColor: band,
          fill: '-1',
        },
        {
          ...common,
          label: 'P(win)',
          data: series.pWin,
          yAxisID: 'p',
          borderColor: line,
          backgroundColor: line,
          borderWidth: 1.75,
        },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'index', intersect: false },
      plugins: {
        annotation: { annotations: markerAnnotations({ markers }, muted, line) },
        legend: { display: false },
        tooltip: {
          callbacks: {
            title: (items) => {
              const index = items[0]?.dataIndex;
              return index === undefined ? '' : formatDayKey(series.dates[index] ?? '');
            },
            label: (item) => {
              const value = item.parsed.y;
              if (value === null || value === undefined)
                return `${item.dataset.label ?? ''}: no data`;
              return item.dataset.yAxisID === 'p'
                ? `P(win): ${value.toFixed(1)}%`
                : `${item.dataset.label ?? ''}: ${formatSignedPercent(value, 1)}`;
            },
          },
        },
      },
      scales: {
        x: {
          type: 'category',
          grid: { color: grid },
          title: { display: true, text: 'Date (UTC)', color: muted, font },
          ticks: {
            color: muted,
            font,
            maxTicksLimit: 7,
            maxRotation: 0,
            callback: (_value, index) => formatDayKey(series.dates[index] ?? ''),
          },
        },
        p: {
          type: 'linear',
          position: 'left',
          min: 0,
          max: 100,
          grid: { color: grid },
          title: { display: true, text: 'P(win) (%)', color: muted, font },
          ticks: { color: muted, font, stepSize: 25, callback: (value) => `${value}%` },
        },
        lift: {
          type: 'linear',
          position: 'right',
          grid: { display: false },
          title: { display: true, text: 'Lift, 95% interval (%)', color: muted, font },
          ticks: {
            color: muted,
            font,
            maxTicksLimit: 6,
            callback: (value) => formatSignedPercent(Number(value), 0),
          },
        },
      },
    },
  };
}
