// The learnings page of a client's store report: what the period's concluded tests taught (counts by call,
// win rate, typical lifts, days to decision, by tag, surface area and goal), two inline SVG charts
// (concluded tests per month, the spread of goal lifts), the shipped winners' yearly value as an
// estimate with every assumption, and the consultant's takeaways. Every text is escaped here.
import { scaleBand, scaleLinear } from 'd3-scale';
import type {
  ConcludedTestRow,
  ImpactRow,
  LearningsFigures,
  ProgrammePriorView,
} from '#shared/contract/index';
import { metricOfGoal } from '#shared/domain/metrics';
import { esc } from './escape';
import type { ReportFormat } from './format';

/** What the page shows for one store, from core/programme's learnings over the report's period. */
export type StoreLearnings = {
  figures: LearningsFigures;
  tests: readonly ConcludedTestRow[];
  impact: readonly ImpactRow[];
  prior: ProgrammePriorView | null;
  definition: string;
  impactNote: string;
};

const WIDTH = 640;
const HEIGHT = 170;
const MARGIN = { top: 10, right: 16, bottom: 22, left: 40 };
/** The calls' colours, as the decision boxes use them; flat in the muted ink. */
const CALL_FILL = {
  ship: 'var(--good)',
  keepControl: 'var(--bad)',
  noDifference: 'var(--muted)',
} as const;
const CALL_LABEL = {
  ship: 'Recommended to ship',
  keepControl: 'Kept the control',
  noDifference: 'No difference',
} as const;
const MAX_BREAKDOWN_ROWS = 8;

function chart(title: string, legend: string, body: string): string {
  return (
    `<figure class="chart"><figcaption>${esc(title)}${legend ? `<span class="legend">${legend}</span>` : ''}</figcaption>` +
    `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${esc(title)}" preserveAspectRatio="xMidYMid meet">${body}</svg></figure>`
  );
}

function key(label: string, fill: string): string {
  return `<span class="key"><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" style="fill:${fill}"/></svg>${esc(label)}</span>`;
}

/** Whole-number ticks of counts, with their grid lines. */
function countAxis(y: ReturnType<typeof scaleLinear<number, number>>, fmt: ReportFormat): string {
  return y
    .ticks(Math.min(4, Math.max(1, y.domain()[1] ?? 1)))
    .filter((tick) => Number.isInteger(tick))
    .map((tick) => {
      const at = y(tick).toFixed(1);
      return `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${at}" y2="${at}"/><text class="tick" x="${MARGIN.left - 6}" y="${at}" dy="0.32em" text-anchor="end">${esc(fmt.int(tick))}</text>`;
    })
    .join('');
}

/** Labels under bands, thinned so they never overlap. */
function bandLabels(labels: readonly string[], x: ReturnType<typeof scaleBand<string>>): string {
  const every = Math.max(1, Math.ceil(labels.length / 8));
  return labels
    .map((label, i) =>
      i % every === 0
        ? `<text class="tick" x="${((x(label) ?? 0) + x.bandwidth() / 2).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="middle">${esc(label)}</text>`
        : '',
    )
    .join('');
}

/** Concluded tests per month, stacked by call. */
function perMonthChart(f: LearningsFigures, fmt: ReportFormat): string {
  if (f.perMonth.length === 0) return '';
  const months = f.perMonth.map((m) => m.month);
  const x = scaleBand<string>()
    .domain(months)
    .range([MARGIN.left, WIDTH - MARGIN.right])
    .paddingInner(0.25);
  const most = Math.max(1, ...f.perMonth.map((m) => m.ship + m.keepControl + m.noDifference));
  const y = scaleLinear()
    .domain([0, most])
    .nice(4)
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const bars = f.perMonth
    .map((m) => {
      let base = 0;
      return (['ship', 'keepControl', 'noDifference'] as const)
        .map((call) => {
          const n = m[call];
          if (n === 0) return '';
          const top = y(base + n);
          const bottom = y(base);
          base += n;
          return `<rect x="${(x(m.month) ?? 0).toFixed(1)}" y="${top.toFixed(1)}" width="${x.bandwidth().toFixed(1)}" height="${(bottom - top).toFixed(1)}" style="fill:${CALL_FILL[call]}"><title>${esc(`${m.month}: ${n} ${CALL_LABEL[call].toLowerCase()}`)}</title></rect>`;
        })
        .join('');
    })
    .join('');
  const legend = (['ship', 'keepControl', 'noDifference'] as const)
    .map((call) => key(CALL_LABEL[call], CALL_FILL[call]))
    .join('');
  return chart(
    'Concluded tests per month',
    legend,
    countAxis(y, fmt) + bars + bandLabels(months, x),
  );
}

/** How many concluded tests had each goal lift, in 5-point bins (the ends open). */
function liftChart(f: LearningsFigures, fmt: ReportFormat): string {
  if (f.concluded === 0) return '';
  const label = (b: LearningsFigures['liftHistogram'][number]) =>
    b.from === null
      ? `< ${fmt.lift(b.to ?? 0)}`
      : b.to === null
        ? `≥ ${fmt.lift(b.from)}`
        : fmt.lift(b.from);
  const labels = f.liftHistogram.map(label);
  const x = scaleBand<string>()
    .domain(labels)
    .range([MARGIN.left, WIDTH - MARGIN.right])
    .paddingInner(0.15);
  const y = scaleLinear()
    .domain([0, Math.max(1, ...f.liftHistogram.map((b) => b.count))])
    .nice(4)
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const bars = f.liftHistogram
    .map((b, i) => {
      if (b.count === 0) return '';
      const at = labels[i] ?? '';
      const top = y(b.count);
      const fill =
        b.to !== null && b.to <= 0
          ? 'var(--bad)'
          : b.from !== null && b.from >= 0
            ? 'var(--good)'
            : 'var(--muted)';
      return `<rect x="${(x(at) ?? 0).toFixed(1)}" y="${top.toFixed(1)}" width="${x.bandwidth().toFixed(1)}" height="${(y(0) - top).toFixed(1)}" style="fill:${fill}"><title>${esc(`${at}: ${b.count}`)}</title></rect>`;
    })
    .join('');
  return chart(
    'Goal lifts of concluded tests (each bar 5 points wide, from its lower end)',
    '',
    countAxis(y, fmt) + bars + bandLabels(labels, x),
  );
}

function figure(label: string, value: string): string {
  return `<div><div class="label">${esc(label)}</div><div class="value">${esc(value)}</div></div>`;
}

function breakdownTable(
  title: string,
  rows: LearningsFigures['byTag'],
  fmt: ReportFormat,
  label: (key: string) => string = (k) => k,
): string {
  if (rows.length === 0) return '';
  const shown = rows.slice(0, MAX_BREAKDOWN_ROWS);
  const more = rows.length - shown.length;
  return (
    `<table><thead><tr><th>${esc(title)}</th><th class="num">Concluded</th><th class="num">Recommended to ship</th><th class="num">Recommended to keep the control</th><th class="num">No difference</th><th class="num">Win rate</th><th class="num">Median lift</th></tr></thead><tbody>` +
    shown
      .map(
        (b) =>
          `<tr><td>${esc(label(b.key))}</td><td class="num">${fmt.int(b.concluded)}</td><td class="num">${fmt.int(b.wins)}</td><td class="num">${fmt.int(b.losses)}</td>` +
          `<td class="num">${fmt.int(b.flat)}</td><td class="num">${b.winRate === null ? '–' : esc(fmt.rate(b.winRate, 0))}</td><td class="num">${b.medianLift === null ? '–' : esc(fmt.lift(b.medianLift))}</td></tr>`,
      )
      .join('') +
    `</tbody></table>${more > 0 ? `<p class="muted">…and ${fmt.int(more)} more.</p>` : ''}`
  );
}

function impactSection(input: StoreLearnings, fmt: ReportFormat): string {
  if (input.impact.length === 0) return '';
  const rows = input.impact
    .map((row) => {
      // A yearly estimate in whole units: cents would claim a precision it does not have.
      const whole = (n: number) => fmt.int(Math.round(n)).replace('-', '−');
      const value =
        row.yearly === null
          ? '–'
          : `${whole(row.yearly.value)} (${whole(row.yearly.low)} to ${whole(row.yearly.high)})`;
      const implemented = row.implemented === null ? '–' : row.implemented ? 'yes' : 'no';
      return (
        `<tr><td>${esc(row.title)}<div class="muted">${esc(row.assumptions)}</div></td><td class="num">${esc(fmt.lift(row.rawLift))}</td>` +
        `<td class="num">${esc(fmt.lift(row.shrunkLift))} (${esc(fmt.lift(row.low))} to ${esc(fmt.lift(row.high))})</td><td class="num">${esc(value)}</td><td>${implemented}</td></tr>`
      );
    })
    .join('');
  return (
    `<h3>Winners: what they may be worth in a year if shipped (an estimate)</h3>` +
    `<table><thead><tr><th>Test</th><th class="num">Lift as measured</th><th class="num">Lift, luck discounted (95%)</th><th class="num">A year, estimated (95%)</th><th>Implemented</th></tr></thead><tbody>${rows}</tbody></table>` +
    `<p class="muted">${esc(input.impactNote)}${
      input.prior?.meanLift == null
        ? ''
        : ` Here the mean is ${esc(fmt.lift(input.prior.meanLift))}, from ${esc(fmt.int(input.prior.tests))} concluded tests of the store.`
    }</p>`
  );
}

function takeaways(tests: readonly ConcludedTestRow[], fmt: ReportFormat): string {
  const noted = tests.filter((t) => t.takeaway !== '');
  if (noted.length === 0) return '';
  return (
    `<h3>Takeaways</h3><ul>` +
    noted
      .map(
        (t) =>
          `<li><strong>${esc(t.title)}</strong> (${esc(t.words.toLowerCase())}${t.lift === null ? '' : `, ${esc(fmt.lift(t.lift))}`}): ${esc(t.takeaway)}</li>`,
      )
      .join('') +
    `</ul>`
  );
}

/** The page, or '' when nothing concluded in the period. */
export function learningsPage(
  storeName: string,
  period: { since: string; until: string },
  input: StoreLearnings,
  fmt: ReportFormat,
): string {
  const f = input.figures;
  if (f.concluded === 0) return '';
  const lift = (x: number | null) => (x === null ? '–' : fmt.lift(x));
  const goalLabel = (goal: string) => metricOfGoal(goal)?.label ?? goal;
  const id = `learnings-${storeName.replace(/[^A-Za-z0-9]+/g, '-')}`;
  return (
    `<section class="learnings" aria-labelledby="${id}"><h2 id="${id}">${esc(storeName)}: what the tests taught, ${esc(fmt.date(period.since))} – ${esc(fmt.date(period.until))}</h2>` +
    `<div class="figures">` +
    figure(
      'Tests concluded',
      `${fmt.int(f.concluded)}: ${fmt.int(f.ship)} recommended to ship, ${fmt.int(f.keepControl)} to keep the control, ${fmt.int(f.noDifference)} no difference`,
    ) +
    figure('Win rate (recommended to ship ÷ concluded)', f.winRate === null ? '–' : fmt.rate(f.winRate, 0)) +
    figure('No difference', f.noDifferenceRate === null ? '–' : fmt.rate(f.noDifferenceRate, 0)) +
    figure(
      'Median lift: winners · losers',
      `${lift(f.medianWinnerLift)} · ${lift(f.medianLoserLift)}`,
    ) +
    figure(
      'Median days from launch to decision',
      f.medianDaysToDecision === null ? '–' : fmt.int(f.medianDaysToDecision),
    ) +
    `</div>` +
    perMonthChart(f, fmt) +
    liftChart(f, fmt) +
    breakdownTable('Tag', f.byTag, fmt) +
    breakdownTable('Surface area', f.bySurfaceArea, fmt) +
    breakdownTable('Goal', f.byGoal, fmt, goalLabel) +
    impactSection(input, fmt) +
    takeaways(input.tests, fmt) +
    `<p class="muted">${esc(input.definition)}</p></section>`
  );
}
