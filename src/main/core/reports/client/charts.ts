// Inline SVG charts for the client report: drawn once, from the same figures as the app, readable in
// print (the control dashed, the variant solid, so grey paper tells them apart) and in dark and light
// viewers (colours come from the document's CSS variables). d3-scale places, d3-shape draws the paths.
import { scaleBand, scaleLinear, scaleUtc } from 'd3-scale';
import { area, line } from 'd3-shape';
import { esc } from './escape';

export type ChartPoint = { x: number; y: number | null };
export type ChartSeries = { label: string; side: 'control' | 'variant' | 'neutral'; points: readonly ChartPoint[] };
export type ChartBand = { x: number; low: number; high: number };
export type ChartMark = { x: number; label: string };

const WIDTH = 640;
const HEIGHT = 112;
const MARGIN = { top: 10, right: 34, bottom: 22, left: 52 };

type Axes = {
  xFormat: (ms: number) => string;
  yFormat: (value: number) => string;
};

function frame(title: string, body: string, legend: readonly ChartSeries[]): string {
  const items = legend
    .map((s) => `<span class="key key-${s.side}"><svg width="18" height="6" aria-hidden="true"><line x1="0" y1="3" x2="18" y2="3" class="line-${s.side}"/></svg>${esc(s.label)}</span>`)
    .join('');
  return (
    `<figure class="chart"><figcaption>${esc(title)}${items ? `<span class="legend">${items}</span>` : ''}</figcaption>` +
    `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${esc(title)}" preserveAspectRatio="xMidYMid meet">${body}</svg></figure>`
  );
}

function yAxis(y: ReturnType<typeof scaleLinear<number, number>>, format: (v: number) => string): string {
  return y
    .ticks(4)
    .map((tick) => {
      const at = y(tick).toFixed(1);
      return `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${at}" y2="${at}"/><text class="tick" x="${MARGIN.left - 6}" y="${at}" dy="0.32em" text-anchor="end">${esc(format(tick))}</text>`;
    })
    .join('');
}

function xAxis(x: ReturnType<typeof scaleUtc<number, number>>, format: (ms: number) => string): string {
  return x
    .ticks(5)
    .map((tick) => {
      const at = x(tick).toFixed(1);
      return `<text class="tick" x="${at}" y="${HEIGHT - 6}" text-anchor="middle">${esc(format(tick.getTime()))}</text>`;
    })
    .join('');
}

function extent(values: readonly number[], fallback: [number, number]): [number, number] {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return fallback;
  let low = Math.min(...finite);
  let high = Math.max(...finite);
  if (low === high) {
    const pad = Math.abs(low) * 0.1 || 1;
    low -= pad;
    high += pad;
  }
  return [low, high];
}

/** Lines over time (days as UTC ms), with an optional band (an interval) and dated marks (annotations). */
export function lineChart(
  title: string,
  series: readonly ChartSeries[],
  axes: Axes & { band?: readonly ChartBand[]; marks?: readonly ChartMark[]; zero?: number; yDomain?: [number, number] },
): string {
  const xs = series.flatMap((s) => s.points.map((p) => p.x)).concat((axes.band ?? []).map((b) => b.x));
  if (xs.length === 0) return '';
  const [x0, x1] = extent(xs, [0, 1]);
  const x = scaleUtc()
    .domain([new Date(x0), new Date(x1)])
    .range([MARGIN.left, WIDTH - MARGIN.right]);
  const ys = series
    .flatMap((s) => s.points.map((p) => p.y ?? Number.NaN))
    .concat((axes.band ?? []).flatMap((b) => [b.low, b.high]))
    .concat(axes.zero === undefined ? [] : [axes.zero]);
  const y = scaleLinear()
    .domain(axes.yDomain ?? extent(ys, [0, 1]))
    .nice(4)
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const parts: string[] = [yAxis(y, axes.yFormat), xAxis(x, axes.xFormat)];
  if (axes.band && axes.band.length > 0) {
    const path = area<ChartBand>()
      .defined((b) => Number.isFinite(b.low) && Number.isFinite(b.high))
      .x((b) => x(new Date(b.x)))
      .y0((b) => y(b.low))
      .y1((b) => y(b.high))(axes.band);
    if (path) parts.push(`<path class="band" d="${path}"/>`);
  }
  if (axes.zero !== undefined) {
    const at = y(axes.zero).toFixed(1);
    parts.push(`<line class="zero" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${at}" y2="${at}"/>`);
  }
  for (const mark of axes.marks ?? []) {
    if (mark.x < x0 || mark.x > x1) continue;
    const at = x(new Date(mark.x)).toFixed(1);
    parts.push(
      `<line class="mark" x1="${at}" x2="${at}" y1="${MARGIN.top}" y2="${HEIGHT - MARGIN.bottom}"/><text class="mark-label" x="${at}" y="${MARGIN.top + 8}" dx="3">${esc(mark.label)}</text>`,
    );
  }
  for (const s of series) {
    const path = line<ChartPoint>()
      .defined((p) => p.y !== null && Number.isFinite(p.y))
      .x((p) => x(new Date(p.x)))
      .y((p) => y(p.y ?? 0))(s.points);
    if (path) parts.push(`<path class="line-${s.side}" d="${path}"><title>${esc(s.label)}</title></path>`);
  }
  return frame(title, parts.join(''), series.filter((s) => s.side !== 'neutral'));
}

/** Daily bars of two sides (visitors a day), side by side per day. */
export function barChart(title: string, series: readonly [ChartSeries, ChartSeries], axes: Axes): string {
  const days = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  if (days.length === 0) return '';
  const x = scaleBand<number>()
    .domain(days)
    .range([MARGIN.left, WIDTH - MARGIN.right])
    .paddingInner(0.2);
  const inner = scaleBand<string>()
    .domain(series.map((s) => s.side))
    .range([0, x.bandwidth()]);
  const values = series.flatMap((s) => s.points.map((p) => p.y ?? 0));
  const y = scaleLinear()
    .domain([0, Math.max(1, ...values)])
    .nice(4)
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const parts: string[] = [yAxis(y, axes.yFormat)];
  const time = scaleUtc()
    .domain([new Date(days[0] ?? 0), new Date(days[days.length - 1] ?? 0)])
    .range([MARGIN.left + x.bandwidth() / 2, WIDTH - MARGIN.right - x.bandwidth() / 2]);
  parts.push(xAxis(time, axes.xFormat));
  for (const s of series) {
    for (const p of s.points) {
      if (p.y === null || !(p.y > 0)) continue;
      const left = (x(p.x) ?? 0) + (inner(s.side) ?? 0);
      const top = y(p.y);
      parts.push(`<rect class="bar-${s.side}" x="${left.toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(0.5, inner.bandwidth()).toFixed(1)}" height="${(y(0) - top).toFixed(1)}"/>`);
    }
  }
  return frame(title, parts.join(''), series);
}
