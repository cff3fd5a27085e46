// Every metric as its lift and 95% interval on one scale, as the Results tab draws it
// (shared/domain/interval-bars.ts): a table a screen reader reads row by row, each bar inline SVG that
// prints (no CSS backgrounds, which print drops), coloured by role and always named in words.
import {
  intervalGeometry,
  intervalReading,
  intervalScale,
  type IntervalRole,
  type IntervalRow,
} from '#shared/domain/interval-bars';
import { esc } from './escape';
import type { ReportFormat } from './format';

const HEIGHT = 14;
const ROLE_WORDS: Record<IntervalRole, string> = {
  goal: 'test goal',
  guardrail: 'guardrail',
  other: '',
};

/** One row's bar: placed in percent of its cell (no viewBox to stretch), so the point stays round. */
function bar(row: IntervalRow, scale: ReturnType<typeof intervalScale>): string {
  const g = intervalGeometry(row, scale);
  const pct = (at: number) => `${(at * 100).toFixed(2)}%`;
  const width = `${Math.max(0.5, (g.to - g.from) * 100).toFixed(2)}%`;
  return (
    `<svg class="ibar role-${row.role}" width="100%" height="${HEIGHT}" aria-hidden="true">` +
    `<line class="izero" x1="50%" x2="50%" y1="0" y2="${HEIGHT}"/>` +
    `<rect class="irange" x="${pct(g.from)}" y="4" width="${width}" height="6" rx="3"/>` +
    (g.cutLow ? `<text class="icut" x="0" y="11">◀</text>` : '') +
    (g.cutHigh ? `<text class="icut" x="100%" y="11" text-anchor="end">▶</text>` : '') +
    `<circle class="ipoint" cx="${pct(g.point)}" cy="7" r="3.5"/></svg>`
  );
}

/** The table of every metric's bar, or '' when no metric has an interval. `caption` names it for readers. */
export function intervalTable(
  rows: readonly IntervalRow[],
  fmt: ReportFormat,
  caption: string,
): string {
  if (rows.length === 0) return '';
  const scale = intervalScale(rows);
  // "+100%", not "+100.0%": an axis end needs no decimals (whatever the locale's separator).
  const tick = (v: number) => (v === 0 ? '0' : fmt.lift(v).replace(/[.,]0+(?=\s*%)/, ''));
  const axis =
    `<span class="iaxis" aria-hidden="true"><span>${esc(tick(-scale.max))}</span><span>0</span><span>${esc(tick(scale.max))}</span></span>` +
    `<span class="visually-hidden">drawn from ${esc(tick(-scale.max))} to ${esc(tick(scale.max))}</span>`;
  const body = rows
    .map((row) => {
      const role = ROLE_WORDS[row.role];
      return (
        `<tr class="role-${row.role}"><th scope="row">${esc(row.label)}${role ? ` <span class="irole">${esc(role)}</span>` : ''}</th>` +
        `<td class="num"><strong>${esc(fmt.lift(row.lift))}</strong> <span class="muted irange-text">${esc(fmt.lift(row.low))} to ${esc(fmt.lift(row.high))}${row.approximate ? ' ≈' : ''}</span>` +
        `<span class="visually-hidden">, ${esc(intervalReading(row))}</span></td>` +
        `<td class="ibar-cell">${bar(row, scale)}</td></tr>`
      );
    })
    .join('');
  return (
    `<table class="intervals"><caption>${esc(caption)}</caption>` +
    `<thead><tr><th scope="col">Metric</th><th scope="col" class="num">Lift (95% interval)</th><th scope="col" class="ibar-cell">${axis}</th></tr></thead>` +
    `<tbody>${body}</tbody></table>`
  );
}
