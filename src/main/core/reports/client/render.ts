// The client reports: one test's, and one store's (or every store's) over a period, as self-contained
// HTML; and the same as a few plain-text bullets to paste into an email or a chat.
import type { DecisionCall } from '#shared/domain/decisions/schemas';
import { atTheCallText, currentLiftText } from '#shared/domain/decisions/figures';
import { CALL_COUNT_WORDS, WIN_RATE_WORDS } from '#shared/domain/programme/learnings';
import { METRICS, metricOfGoal } from '#shared/domain/metrics';
import { dailySeries } from '#shared/domain/statistics/daily';
import { CALL_ORDER } from '#shared/domain/decisions/schemas';
import { htmlDocument, type ReportHeader } from './document';
import { learningsPage, type StoreLearnings } from './learnings';
import { esc, shortTitle } from './escape';
import { reportFormat, type ReportFormat } from './format';
import { signOffText } from './sign-off';
import { testSection, type ClientTest } from './sections';
import { testCards } from './cards';
import { NO_SHOTS, type ReportShots } from './screenshots';

export type { ClientTest } from './sections';

export type ReportOptions = {
  header: ReportHeader;
  /** BCP 47 locale for numbers and dates; the system's when empty or unknown. */
  locale?: string;
  /** When the report was written (ISO). */
  generatedAt: string;
  /** The sides' screenshots fetched while writing it (embedded, or why not). */
  shots?: ReportShots;
  /**
   * A store report's tests as full sections (about two pages each, with the learnings page) instead
   * of one compact card each after the summary.
   */
  detail?: boolean;
};

export type StorePeriod = { since: string; until: string };

export type StoreSection = {
  storeId?: string;
  storeName: string;
  tests: readonly ClientTest[];
  /** What the period's concluded tests taught: a page after the summary when any concluded. */
  learnings?: StoreLearnings | null;
};

/** The document's contentinfo: who wrote it, when, and how its figures are made. */
function footer(fmt: ReportFormat, generatedAt: string): string {
  return (
    `<footer class="about">Written by Splitbook on ${esc(fmt.dateTime(generatedAt))}. "Splitbook" figures are recomputed from the ` +
    `counts the store's API sent (calls by a group sequential test that stays valid when checked daily; revenue figures ` +
    `approximate); figures marked "API" are the store's own, as sent. Money is in the store's currency.</footer>`
  );
}

/** The report of one test. */
export function renderTestReport(input: ClientTest, options: ReportOptions): string {
  const fmt = reportFormat(options.locale);
  const main = testSection(input, fmt, { single: true, shots: options.shots ?? NO_SHOTS });
  return htmlDocument(
    `${input.storeName} – ${input.test.title}`,
    options.header,
    { main, footer: footer(fmt, options.generatedAt) },
    fmt.locale,
  );
}

/** The tests of the period by their call now, each count named for what it is (CALL_COUNT_WORDS). */
const GROUPS: { label: string; calls: DecisionCall[] }[] = (
  ['ship', 'keep_control', 'no_difference', 'keep_running', 'paused', 'check_data', 'cannot_conclude'] as const
).map((call) => ({ label: CALL_COUNT_WORDS[call], calls: [call] }));

function liftOf(t: ClientTest): number | null {
  return t.decision?.goal?.lift ?? null;
}

function goalLabel(t: ClientTest): string {
  const metric = metricOfGoal(t.test.goal);
  return metric
    ? (METRICS.find((m) => m.rate === metric.rate)?.label ?? metric.label)
    : t.test.goal;
}

/**
 * A store's summary page. `level` is its heading's (1 in a one-store report, where it is the document's
 * heading; 2 under "All stores"); its parts are one level below.
 */
function summary(
  section: StoreSection,
  period: StorePeriod,
  fmt: ReportFormat,
  level: 1 | 2,
): string {
  const head = `h${level}`;
  const h = `h${level + 1}`;
  const { tests } = section;
  const count = (calls: DecisionCall[]) =>
    tests.filter((t) => t.decision !== null && calls.includes(t.decision.call)).length;
  const noCall = tests.filter((t) => t.decision === null).length;
  const decided = (call: DecisionCall) =>
    tests
      .filter((t) => t.decision?.call === call && liftOf(t) !== null)
      .sort((a, b) => Math.abs(liftOf(b) ?? 0) - Math.abs(liftOf(a) ?? 0))
      .slice(0, 3);
  const line = (t: ClientTest) =>
    `<li><strong>${shortTitle(t.test.title, 90)}</strong>: ${esc(goalLabel(t).toLowerCase())} ${esc(fmt.lift(liftOf(t) ?? 0))}</li>`;
  const wins = decided('ship');
  const losses = decided('keep_control');
  const waiting = tests
    .filter((t) => t.decision?.call === 'keep_running')
    .sort((a, b) => (a.decision?.daysToDecision ?? 0) - (b.decision?.daysToDecision ?? 0));
  const table =
    `<table class="all-tests"><colgroup><col class="c-test"><col class="c-status"><col class="c-goal"><col class="c-call"><col class="c-lift"><col class="c-chance"></colgroup><thead><tr><th scope="col">Test</th><th scope="col">Status</th><th scope="col">Goal</th><th scope="col">Call</th><th scope="col" class="num">Lift (goal)</th><th scope="col" class="num">Chance to win</th></tr></thead><tbody>` +
    tests
      .map((t) => {
        const goal = t.decision?.goal;
        return (
          `<tr><td>${shortTitle(t.test.title, 90)}</td><td>${esc(t.test.status)}</td><td>${esc(goalLabel(t))}</td><td>${esc((t.decision?.words ?? (t.results === null ? 'No results yet' : 'No call')).replace(/ — no call until it resumes$/, ''))}</td>` +
          `<td class="num">${goal?.lift == null ? '–' : esc(fmt.lift(goal.lift))}</td><td class="num">${goal?.pWin == null ? '–' : esc(fmt.probability(goal.pWin))}</td></tr>`
        );
      })
      .join('') +
    `</tbody></table>`;
  return (
    `<section class="summary" aria-labelledby="${summaryId(section)}"><${head} id="${summaryId(section)}">${esc(section.storeName)}: tests ${esc(fmt.date(period.since))} – ${esc(fmt.date(period.until))}</${head}>` +
    `<div class="figures">` +
    `<div><div class="label">Tests in the period</div><div class="value">${fmt.int(tests.length)}</div>${noCall > 0 ? `<div class="muted">${fmt.int(noCall)} without results yet</div>` : ''}</div>` +
    concludedFigure(section, fmt) +
    `</div>` +
    `<dl class="call-counts" aria-label="The tests' calls now">${GROUPS.map((g) => `<div><dt>${esc(g.label)}</dt><dd>${fmt.int(count(g.calls))}</dd></div>`).join('')}</dl>` +
    (wins.length > 0 ? `<${h}>Biggest wins</${h}><ul>${wins.map(line).join('')}</ul>` : '') +
    (losses.length > 0 ? `<${h}>Biggest losses</${h}><ul>${losses.map(line).join('')}</ul>` : '') +
    (waiting.length > 0
      ? `<${h}>Waiting for a decision</${h}><ul>${waiting
          .slice(0, 5)
          .map(
            (t) =>
              `<li><strong>${shortTitle(t.test.title, 90)}</strong>: ${esc(t.decision?.words ?? '')}${t.decision?.decisionDate ? ` (around ${esc(fmt.date(t.decision.decisionDate))})` : ''}</li>`,
          )
          .join('')}</ul>`
      : '') +
    `<${h}>All tests</${h}>${tests.length === 0 ? '<p class="muted">No test ran or ended in this period.</p>' : table}</section>`
  );
}

/** The period's concluded calls and win rate, the Learnings' own figures (one definition everywhere). */
function concludedFigure(section: StoreSection, fmt: ReportFormat): string {
  const figures = section.learnings?.figures;
  if (!figures) return '';
  return (
    `<div><div class="label">Concluded in the period (by the call's day)</div><div class="value">${fmt.int(figures.concluded)}</div>` +
    `<div class="muted">${esc(WIN_RATE_WORDS)}: ${figures.winRate === null ? '–' : esc(fmt.rate(figures.winRate, 0))}</div></div>`
  );
}

function summaryId(section: StoreSection): string {
  return `summary-${esc(section.storeId ?? section.storeName.replace(/[^A-Za-z0-9]+/g, '-'))}`;
}

/**
 * The report of one store, or of every store: a summary page per store, then one compact card per
 * test (at most half a page each); with `detail`, each store's learnings page after its summary and a
 * full section per test instead.
 */
export function renderStoreReport(
  sections: readonly StoreSection[],
  period: StorePeriod,
  options: ReportOptions,
): string {
  const fmt = reportFormat(options.locale);
  const shots = options.shots ?? NO_SHOTS;
  const many = sections.length !== 1;
  const title = many
    ? `All stores – tests ${period.since} to ${period.until}`
    : `${sections[0]?.storeName ?? ''} – tests ${period.since} to ${period.until}`;
  const heading = many
    ? `<h1>All stores: tests ${esc(fmt.date(period.since))} – ${esc(fmt.date(period.until))}</h1>`
    : '';
  const tests = sections.flatMap((section) => section.tests);
  const main =
    heading +
    sections
      .map(
        (section) =>
          summary(section, period, fmt, many ? 2 : 1) +
          (options.detail && section.learnings
            ? learningsPage(section.storeName, period, section.learnings, fmt)
            : ''),
      )
      .join('') +
    (options.detail
      ? tests.map((t) => testSection(t, fmt, { shots })).join('')
      : testCards(tests, fmt, shots));
  return htmlDocument(
    title,
    options.header,
    { main, footer: footer(fmt, options.generatedAt) },
    fmt.locale,
  );
}

/**
 * Three to six bullets a consultant can paste: one per test, the most pressing calls first. Each leads
 * with the goal's lift now and its interval (the figure the list and the report show); a call made at a
 * look adds its figures there, labelled "at the call, day N (date)".
 */
export function textSummary(
  tests: readonly ClientTest[],
  options: { locale?: string; max?: number } = {},
): string {
  const fmt = reportFormat(options.locale);
  const order = new Map(CALL_ORDER.map((call, rank) => [call, rank]));
  const sorted = [...tests].sort(
    (a, b) => (order.get(a.decision?.call ?? 'paused') ?? 9) - (order.get(b.decision?.call ?? 'paused') ?? 9),
  );
  const lines = sorted.slice(0, options.max ?? 6).map((t) => {
    const head = `${t.test.title} (${t.storeName})`;
    if (t.decision === null) return `• ${head}: no results yet.`;
    const now = currentLiftText(t.decision.goal);
    const figures = now === null ? '' : ` — ${goalLabel(t).toLowerCase()} ${now} now`;
    const atCall = atTheCallText(t.decision);
    const running = t.results === null ? 0 : dailySeries(t.results.daily).days.length;
    const days = running === 0 ? '' : `, ${fmt.int(running)} day${running === 1 ? '' : 's'} of data`;
    const signOff = signOffText(t.signOff, t.decision.call, fmt);
    return `• ${head}: ${t.decision.words.charAt(0).toLowerCase()}${t.decision.words.slice(1)}${figures}${days}${atCall === null ? '' : `; ${atCall}`}.${signOff === null ? '' : ` ${signOff}`}`;
  });
  if (tests.length > lines.length)
    lines.push(`• …and ${fmt.int(tests.length - lines.length)} more tests in the full report.`);
  return lines.join('\n');
}
