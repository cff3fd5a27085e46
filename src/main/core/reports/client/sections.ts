// The parts of a client report: one test's section (what was tested, the call, the figures, the charts,
// the caveats, the consultant's note), and a store's summary page. Every text from the API or the user
// is escaped here; every figure is the app's own (shared/domain), formatted for reading.
import type { SideStatistics, Test, TestResults } from '#shared/api/index';
import { SEGMENTS } from '#shared/api/results';
import type { Decision } from '#shared/domain/decisions/schemas';
import { metricOfGoal, rateName } from '#shared/domain/metrics';
import { callDayText, callLift, forecastText, guardrailsText, oddsText } from '#shared/domain/decisions/figures';
import { analyseTest, overTime, dailySeries, type Alert } from '#shared/domain/statistics/index';
import { verdictOf, daysRunning } from '#shared/domain/verdict';
import { metricIntervals, type IntervalRow } from '#shared/domain/interval-bars';
import { barChart, lineChart, type ChartPoint } from './charts';
import { esc } from './escape';
import type { ReportFormat } from './format';
import { intervalTable } from './intervals';
import { NO_SHOTS, shotsOf, type ReportShots } from './screenshots';
import { signOffLine } from './sign-off';
import type { ReportSignOff } from '../../team/sign-offs';

/** Everything a test's section shows, read from the cache. */
export type ClientTest = {
  storeName: string;
  test: Test;
  results: TestResults | null;
  decision: Decision | null;
  note: string;
  /** The store's dated annotations (only those inside the test's run are shown). */
  annotations: readonly { day: string; label: string }[];
  /** When the figures were synced: the results' fetch time, else the test's. */
  figuresAsOf: string | null;
  /** The call's sign-off: absent when the store is not shared with a team, null when not signed off. */
  signOff?: ReportSignOff | null;
};

const DAY_MS = 86_400_000;
/** The caveats a client should read about, in the alerts' own plain words. */
const CAVEATS = new Set([
  'sample-ratio-mismatch',
  'missing-days',
  'early-significance',
  'daily-totals-mismatch',
  'contradictory-counts',
  'implausible-lift',
]);

function dayMs(key: string): number {
  return Date.parse(`${key.slice(0, 10)}T00:00:00Z`);
}

function rateOf(side: SideStatistics, rate: string): number | null {
  const part =
    rate === 'cvr'
      ? side.conversions
      : rate === 'acr'
        ? side.carts
        : rate === 'ctr'
          ? side.clicks
          : null;
  if (rate === 'rpv') return side.visitors > 0 ? side.revenue / side.visitors : null;
  if (rate === 'aov') return side.orders > 0 ? side.revenue / side.orders : null;
  return part === null || side.visitors <= 0 ? null : part / side.visitors;
}

/** The test's store, campaign, goal, dates and status, in one line. */
export function metaLine(input: ClientTest, fmt: ReportFormat): string {
  const { test } = input;
  const campaign =
    test.campaign && typeof test.campaign === 'object' && 'name' in test.campaign
      ? String((test.campaign as { name: unknown }).name ?? '')
      : '';
  const days = daysRunning(
    test.startAt,
    test.endAt,
    Date.parse(input.figuresAsOf ?? '') || Date.now(),
  );
  const dates =
    test.startAt === null
      ? 'not started'
      : `${fmt.date(test.startAt)} – ${test.endAt === null ? 'running' : fmt.date(test.endAt)}${days === null ? '' : ` (${fmt.int(days)} day${days === 1 ? '' : 's'})`}`;
  const goal = metricOfGoal(test.goal)?.label ?? test.goal;
  const parts = [
    `Store: ${esc(input.storeName)}`,
    campaign ? `Campaign: ${esc(campaign)}` : '',
    `Goal: ${esc(goal)}`,
    esc(dates),
    `Status: ${esc(test.status)}`,
  ];
  return parts.filter(Boolean).join(' · ');
}

/** The call in words and its reason (and, in a full section, its basis and a shared store's sign-off). */
export function decisionBox(input: ClientTest, withBasis = true, fmt?: ReportFormat): string {
  const { decision, results } = input;
  if (decision !== null) {
    return (
      `<div class="decision ${esc(decision.call)}"><div><span class="call">${esc(decision.words)}:</span> ${esc(decision.reason)}</div>` +
      (withBasis ? `<div class="basis">${esc(decision.basis)}</div>` : '') +
      (fmt ? signOffLine(input.signOff, decision.call, fmt) : '') +
      `</div>`
    );
  }
  if (results === null)
    return `<div class="decision"><span class="call">No results yet.</span> The test has not collected data to judge.</div>`;
  const verdict = verdictOf(results.lifecycle);
  return `<div class="decision"><span class="call">${esc(verdict.words)}</span> <span class="muted">(the store's own verdict)</span></div>`;
}

function keyFigures(input: ClientTest, fmt: ReportFormat): string {
  const { decision, results } = input;
  if (results === null) return '';
  const goal = decision?.goal ?? null;
  const tone = (x: number | null) => (x === null ? '' : x > 0 ? 'pos' : x < 0 ? 'neg' : '');
  const name = goal ? rateName(goal.metric) : 'the goal';
  const lift =
    goal?.lift == null
      ? '–'
      : `<span class="${tone(goal.lift)}">${esc(fmt.lift(goal.lift))}</span>`;
  const interval =
    goal?.liftLow == null || goal.liftHigh == null
      ? goal?.approximate
        ? 'no interval before 7 days of data'
        : ''
      : `95% ${goal.approximate ? 'interval, approximate' : 'credible interval'} (one look) ${esc(fmt.lift(goal.liftLow))} to ${esc(fmt.lift(goal.liftHigh))}`;
  const apiVerdict = verdictOf(results.lifecycle).words;
  const day = decision === null ? null : callDayText(decision);
  const look = decision?.look ?? null;
  const atCall =
    decision !== null && day !== null && look !== null
      ? `<div><div class="label">At the call, ${esc(day)} · Splitbook</div><div class="value">${esc(fmt.lift(callLift(decision) ?? look.lift))}</div>` +
        `<div class="muted">${look.adjustedLift === null ? '' : `adjusted for stopping early (${esc(fmt.lift(look.lift))} as seen); `}${esc(`${Number(((1 - look.alpha) * 100).toFixed(1))}%`)} sequential interval ${esc(fmt.lift(look.low))} to ${esc(fmt.lift(look.high))}</div></div>`
      : '';
  const odds = decision === null ? null : oddsText(decision);
  const when = decision === null ? null : forecastText(decision);
  const guardrails = decision === null ? null : guardrailsText(decision);
  const note = (label: string, text: string | null) =>
    text === null ? '' : `<div><div class="label">${esc(label)}</div><div class="text">${esc(text)}</div></div>`;
  return (
    `<div class="figures">` +
    `<div><div class="label">Lift now, ${esc(name)} · Splitbook</div><div class="value">${lift}</div><div class="muted">${interval}</div></div>` +
    atCall +
    (atCall === '' ? note('When · Splitbook', when) : '') +
    note('Odds now · Splitbook', odds) +
    `<div><div class="label">The store's API</div><div class="value">${esc(apiVerdict)}</div><div class="muted">lift ${esc(fmt.lift(results.lift / 100))} (metric not stated), chance to win ${esc(fmt.probability(results.variantProbabilityWin))}</div></div>` +
    `</div>` +
    (guardrails === null ? '' : `<p class="guardrails"><strong>Guardrail${decision?.guardrails.length === 1 ? '' : 's'}:</strong> ${esc(guardrails)}</p>`)
  );
}

function metricsTable(results: TestResults, goal: string | null, fmt: ReportFormat, h: string): string {
  const row = (name: string, value: (s: SideStatistics) => string, isGoal = false) =>
    `<tr${isGoal ? ' class="goal-row"' : ''}><th scope="row">${esc(name)}${isGoal ? ' <span class="muted">(the goal)</span>' : ''}</th><td class="num">${value(results.control)}</td><td class="num">${value(results.variant)}</td></tr>`;
  const rate = (r: string) => (s: SideStatistics) => {
    const v = rateOf(s, r);
    return v === null ? '–' : esc(r === 'rpv' || r === 'aov' ? fmt.money(v) : fmt.rate(v));
  };
  const count = (pick: (s: SideStatistics) => number) => (s: SideStatistics) => esc(fmt.int(pick(s)));
  const rateRow = (r: 'cvr' | 'acr' | 'ctr' | 'rpv' | 'aov') => row(rateName(r), rate(r), goal === r);
  return (
    `<${h}>Figures per side</${h}><table><thead><tr><th scope="col">Figure</th><th scope="col" class="num control">Control</th><th scope="col" class="num variant">Variant</th></tr></thead><tbody>` +
    row('Visitors', count((s) => s.visitors)) +
    row('Conversions', count((s) => s.conversions)) +
    rateRow('cvr') +
    // A cart or click goal's own counts and rate, beside the figures every test has.
    (goal === 'acr' ? row('Carts', count((s) => s.carts)) + rateRow('acr') : '') +
    (goal === 'ctr' ? row('Clicks', count((s) => s.clicks)) + rateRow('ctr') : '') +
    row('Orders', count((s) => s.orders)) +
    row("Revenue (store's currency)", (s) => esc(fmt.money(s.revenue))) +
    rateRow('rpv') +
    rateRow('aov') +
    `</tbody></table><div class="muted">Rates recomputed by Splitbook from the counts the store sent, each per visitor (average order value per order); the API's own rate fields are not used.</div>`
  );
}

function segmentsTable(results: TestResults, goal: string | null, fmt: ReportFormat, h: string): string {
  const metric = goal ?? 'cvr';
  const money = metric === 'rpv' || metric === 'aov';
  const show = (v: number | null) => (v === null ? '–' : esc(money ? fmt.money(v) : fmt.rate(v)));
  const rows = SEGMENTS.flatMap((segment) => {
    const c = results.control[segment];
    const v = results.variant[segment];
    if (!c || !v) return [];
    const cr = rateOf(c, metric);
    const vr = rateOf(v, metric);
    const lift = cr !== null && vr !== null && cr > 0 ? vr / cr - 1 : null;
    const name = {
      mobile: 'Mobile',
      desktop: 'Desktop',
      new: 'New visitors',
      returning: 'Returning visitors',
    }[segment];
    return [
      `<tr><td>${name}</td><td class="num">${esc(fmt.int(c.visitors))}</td><td class="num">${show(cr)}</td>` +
        `<td class="num">${esc(fmt.int(v.visitors))}</td><td class="num">${show(vr)}</td><td class="num">${lift === null ? '–' : esc(fmt.lift(lift))}</td></tr>`,
    ];
  });
  if (rows.length === 0) return '';
  const name = rateName(metric as 'cvr');
  return (
    `<${h}>Segments</${h}><table><thead><tr><th scope="col">Segment</th><th scope="col" class="num control">Control visitors</th><th scope="col" class="num control">${esc(name)}</th>` +
    `<th scope="col" class="num variant">Variant visitors</th><th scope="col" class="num variant">${esc(name)}</th><th scope="col" class="num">Lift of ${esc(name.charAt(0).toLowerCase() + name.slice(1))}</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

function charts(input: ClientTest, fmt: ReportFormat): string {
  const { results, test } = input;
  if (results === null) return '';
  const { days } = dailySeries(results.daily);
  if (days.length === 0) return '';
  const metric = metricOfGoal(test.goal)?.rate ?? 'cvr';
  const label = rateName(metric);
  const xFormat = (ms: number) => fmt.date(new Date(ms).toISOString().slice(0, 10));
  const cumulative = (side: 'control' | 'variant'): ChartPoint[] => {
    const total = { visitors: 0, conversions: 0, carts: 0, clicks: 0, orders: 0, revenue: 0 };
    return days.map((day) => {
      const s = day[side];
      total.visitors += s.visitors;
      total.conversions += s.conversions;
      total.carts += s.carts;
      total.clicks += s.clicks;
      total.orders += s.orders;
      total.revenue += s.revenue;
      return { x: dayMs(day.date), y: rateOf({ ...s, ...total }, metric) };
    });
  };
  const money = metric === 'rpv' || metric === 'aov';
  const first = dayMs(days[0]?.date ?? '');
  const last = dayMs(days[days.length - 1]?.date ?? '');
  const marks = [
    ...input.annotations.map((a) => ({ x: dayMs(a.day), label: a.label })),
    ...callMarks(input.decision, days[0]?.date ?? null),
  ].filter((mark) => mark.x >= first && mark.x <= last);
  const parts = [
    lineChart(
      `${label} over time (cumulative)`,
      [
        { label: 'Control', side: 'control', points: cumulative('control') },
        { label: 'Variant', side: 'variant', points: cumulative('variant') },
      ],
      { xFormat, yFormat: (v) => (money ? fmt.money(v) : fmt.rate(v, 1)), marks },
    ),
  ];
  if (metric === 'cvr' || metric === 'acr' || metric === 'ctr') {
    const points = overTime(results.daily, metric);
    if (points.length > 1) {
      parts.push(
        lineChart(
          'Chance the variant wins, over time (Splitbook, from the cumulative counts)',
          [
            {
              label: 'Chance to win',
              side: 'neutral',
              points: points.map((p) => ({ x: dayMs(p.date), y: p.pWin })),
            },
          ],
          { xFormat, yFormat: (v) => fmt.rate(v, 0), yDomain: [0, 1], marks },
        ),
      );
    }
  }
  parts.push(
    barChart(
      'Visitors a day',
      [
        {
          label: 'Control',
          side: 'control',
          points: days.map((d) => ({ x: dayMs(d.date), y: d.control.visitors })),
        },
        {
          label: 'Variant',
          side: 'variant',
          points: days.map((d) => ({ x: dayMs(d.date), y: d.variant.visitors })),
        },
      ],
      { xFormat, yFormat: (v) => fmt.int(v) },
    ),
  );
  return parts.join('');
}

/** The day of the call (and, for a fading lift, week 1's end) on the charts: what the figures at the call refer to. */
function callMarks(decision: Decision | null, firstDay: string | null): { x: number; label: string }[] {
  if (decision === null) return [];
  const marks: { x: number; label: string }[] = [];
  const day = callDayText(decision);
  if (day !== null && decision.look !== null) marks.push({ x: dayMs(decision.look.date), label: `Call, ${day}` });
  if (decision.flags.fading !== null && firstDay !== null) marks.push({ x: dayMs(firstDay) + 6 * DAY_MS, label: 'Week 1 ends: the lift fades' });
  return marks;
}

function caveats(input: ClientTest, h: string): string {
  if (input.results === null) return '';
  const now = Date.parse(input.figuresAsOf ?? '') || Date.now();
  const alerts: Alert[] = analyseTest(input.test, input.results, { now }).alerts.filter((a) =>
    CAVEATS.has(a.code),
  );
  const guards = (input.decision?.guards ?? []).filter(
    (g) => !g.ok && (g.id === 'runtime' || g.id === 'events'),
  );
  const items = [
    ...alerts.map((a) => a.message),
    ...guards.map((g) => `Not enough data yet for a call: ${g.text}.`),
  ];
  if (items.length === 0) return '';
  return `<${h}>Caveats</${h}><ul class="caveats">${items.map((m) => `<li>${esc(m)}</li>`).join('')}</ul>`;
}

/**
 * The sides' screenshots: each embedded when the report was written (a data: URL, nothing to load),
 * else its link and why it is not shown. `compact`: small, side by side, for a card.
 */
export function screenshotsBlock(
  test: Test,
  shots: ReportShots,
  h: string | null,
  compact = false,
): string {
  const sides = shotsOf(test, shots);
  if (sides.length === 0) return '';
  const label = (side: string) => (side === 'control' ? 'Control' : 'Variant');
  const figures = sides
    .map((shot) =>
      shot.dataUrl !== null
        ? `<figure class="shot side-${shot.side}"><img src="${esc(shot.dataUrl)}" alt="${label(shot.side)} screenshot"><figcaption>${label(shot.side)}</figcaption></figure>`
        : `<p class="shot-link">${label(shot.side)}: <a href="${esc(shot.url)}">${esc(shot.url)}</a> <span class="muted" title="${esc(shot.reason)}">(${esc(compact ? shortReason(shot.reason) : shot.reason)})</span></p>`,
    )
    .join('');
  return `${h ? `<${h}>Screenshots</${h}>` : ''}<div class="shots${compact ? ' compact' : ''}">${figures}</div>`;
}

/** A card's note on a side not shown: its first sentence ("not embedded: the screenshot is too large"). */
function shortReason(reason: string): string {
  const end = reason.indexOf('. ');
  return end > 0 ? reason.slice(0, end) : reason;
}

/** Every metric's lift and interval, the goal's from the call's own figures (shared/domain/interval-bars). */
export function intervalRows(input: ClientTest): IntervalRow[] {
  if (input.results === null) return [];
  const now = Date.parse(input.figuresAsOf ?? '') || Date.now();
  return metricIntervals(analyseTest(input.test, input.results, { now }), {
    goal: input.decision?.goal ?? null,
    guardrails: input.decision?.guardrails.map((check) => check.metric) ?? [],
  });
}

function notes(input: ClientTest, fmt: ReportFormat, h: string): string {
  const { test } = input;
  const start = test.startAt ? Date.parse(test.startAt) - DAY_MS : -Infinity;
  const end = test.endAt ? Date.parse(test.endAt) + DAY_MS : Infinity;
  const dated = input.annotations.filter((a) => dayMs(a.day) >= start && dayMs(a.day) <= end);
  const parts: string[] = [];
  if (input.note.trim() !== '')
    parts.push(`<${h}>Consultant's note</${h}><div class="note">${esc(input.note)}</div>`);
  if (dated.length > 0) {
    parts.push(
      `<${h}>Dated annotations</${h}><ul>${dated.map((a) => `<li>${esc(fmt.date(a.day))}: ${esc(a.label)}</li>`).join('')}</ul>`,
    );
  }
  return parts.join('');
}

/**
 * One test's section: title to note, with the time its figures were synced. Alone (a test's report) its
 * title is the document's one h1; in a store report an h2, each part one level below.
 */
export function testSection(
  input: ClientTest,
  fmt: ReportFormat,
  { single = false, shots = NO_SHOTS }: { single?: boolean; shots?: ReportShots } = {},
): string {
  const { test, results } = input;
  const head = single ? 'h1' : 'h2';
  const h = single ? 'h2' : 'h3';
  const id = `test-${esc(test.id)}`;
  const tags =
    test.tags.length > 0
      ? `<div class="chips">${test.tags.map((t) => `<span>${esc(t.name)}</span>`).join('')}</div>`
      : '';
  const hypothesis = test.hypothesisDescription
    ? `<p><strong>Hypothesis.</strong> ${esc(test.hypothesisDescription)}</p>`
    : '';
  return (
    `<section class="test${single ? ' single' : ''}" data-test-id="${esc(test.id)}" aria-labelledby="${id}">` +
    `<${head} id="${id}" class="test-title" title="${esc(test.title)}">${esc(test.title)}</${head}><div class="meta">${metaLine(input, fmt)}</div>${tags}${hypothesis}` +
    decisionBox(input, true, fmt) +
    keyFigures(input, fmt) +
    intervalTable(intervalRows(input), fmt, 'Every metric: lift and 95% interval') +
    charts(input, fmt) +
    (results === null
      ? ''
      : metricsTable(results, metricOfGoal(test.goal)?.rate ?? null, fmt, h) +
        segmentsTable(results, metricOfGoal(test.goal)?.rate ?? null, fmt, h)) +
    caveats(input, h) +
    screenshotsBlock(test, shots, h) +
    notes(input, fmt, h) +
    `<p class="asof">Figures as of ${input.figuresAsOf ? esc(fmt.dateTime(input.figuresAsOf)) : 'never synced'}.</p>` +
    `</section>`
  );
}
