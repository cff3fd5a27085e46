// The `tests` report: one row per test in scope, the API's figures beside Splitbook's own statistics,
// read from the cache's typed columns and the statistics it keeps with each test's results.
import { Test, TestResults } from '#shared/api/index';
import { DECISION_RULES_VERSION, type Decision } from '#shared/domain/decisions/index';
import { metricOfGoal } from '#shared/domain/metrics';
import {
  analyseBinary,
  analyseTest,
  dailySeries,
  revenueLift,
  sampleRatioTest,
  type TestAnalysis,
} from '#shared/domain/statistics/index';
import { dayNumberOfTimestamp } from '#shared/domain/statistics/daily';
import { noteKey, notesFor } from '../db/user/notes';
import { testRawJson, type CachedTestRow } from '../db/cache/report-rows';
import { unpackJson } from '../db/values';
import type { CsvValue } from './csv';
import { packedResultsHead, resultsHead, revenueDays, type ResultsHead } from './results-text';
import { BATCH_WITH_RESULTS, scopedRows, scopedTests } from './source';
import { SIGN_OFF_COLUMNS, TESTS_COLUMNS } from './tests-columns';
import { anyStoreShared, signOffFor, storeSignOffs, type StoreSignOffs } from '../team/sign-offs';
import type { ReportContext, ReportDefinition } from './types';
import { fractionCell, oneLine, parseJson, tagsCell, utc } from './values';

const DAY_MS = 86_400_000;

// The columns are declared in their own file (tests-columns.ts); tests and the registry read them here too.
export { TESTS_COLUMNS };

/** The guardrail cells of a kept call: the one clearly worse, else the first; empty without a readable call. */
function guardrailCells(decisionJson: string | null): CsvValue[] {
  const decision = parseJson(decisionJson ?? 'null');
  const checks = typeof decision === 'object' && decision !== null ? (decision as Partial<Decision>).guardrails : undefined;
  if (!Array.isArray(checks) || checks.length === 0) return [null, null, null, null, null];
  const check = checks.find((c) => c.verdict === 'worse') ?? checks[0];
  if (check === undefined) return [null, null, null, null, null];
  return [check.metric, check.verdict, check.lift, check.low, check.high];
}

type Goal = { rate: 'cvr' | 'rpv' | 'aov' | 'acr' | 'ctr' } | null;

function goalValue(results: ResultsHead, side: 'control' | 'variant', goal: Goal): CsvValue {
  if (!goal) return null;
  const value = results[side][goal.rate];
  return goal.rate === 'rpv' || goal.rate === 'aov' ? value : fractionCell(value);
}

function daysRunning(startAt: string | null, endAt: string | null, now: number): number | null {
  const start = startAt ? Date.parse(startAt) : Number.NaN;
  if (!Number.isFinite(start)) return null;
  const endMs = endAt ? Date.parse(endAt) : Number.NaN;
  const end = Number.isFinite(endMs) ? Math.min(endMs, now) : now;
  return Math.max(0, Math.floor((end - start) / DAY_MS));
}

/** Splitbook's statistics for the goal: a failure to analyse leaves the cells empty, never the export. */
function analyse(test: Test, results: TestResults, now: number): TestAnalysis | null {
  try {
    return analyseTest(test, results, { now });
  } catch {
    return null;
  }
}

/** p_win, lift_ci_low, lift_ci_high, srm_p and alerts. */
type StatisticsCells = [number | null, number | null, number | null, number | null, string | null];
const NO_STATISTICS: StatisticsCells = [null, null, null, null, null];

function statisticsCells(analysis: TestAnalysis | null): StatisticsCells {
  if (!analysis) return NO_STATISTICS;
  const goal = analysis.goalMetric;
  let pWin: number | null = null;
  let low: number | null = null;
  let high: number | null = null;
  if (goal === 'cvr' || goal === 'acr' || goal === 'ctr') {
    const binary = analysis.perMetric[goal];
    pWin = binary?.pWin ?? null;
    low = binary?.liftCiLow ?? null;
    high = binary?.liftCiHigh ?? null;
  } else if (goal === 'rpv' || goal === 'aov') {
    const revenue = analysis.revenue?.[goal] ?? null;
    low = revenue?.liftCiLow ?? null;
    high = revenue?.liftCiHigh ?? null;
  }
  return [pWin, low, high, analysis.srm.pValue, alertsCell(analysis.alerts.map((a) => a.code))];
}

function alertsCell(codes: readonly string[]): string | null {
  const alerts = codes.join('; ');
  return alerts === '' ? null : alerts;
}

/** The cells of a test's own record, in TESTS_COLUMNS' order up to (not including) its results. */
type TestCells = {
  id: string;
  title: string;
  status: string;
  stage: string;
  goal: string;
  device: string;
  visitorOption: string;
  campaign: string | null;
  tags: string | null;
  priority: string | null;
  surfaceArea: string | null;
  impact: number | null;
  effort: number | null;
  implemented: boolean | null;
  createdAt: string;
  startAt: string | null;
  endAt: string | null;
  controlTraffic: number;
  variantTraffic: number | null;
  hypothesis: string | null;
};

/** The row without its note and decision cells: the test's cells, its results' and the statistics. */
function rowCells(
  storeName: string,
  storeId: string,
  test: TestCells,
  results: ResultsHead | null,
  lifecycle: { tier: string | null; leading: string | null },
  statistics: StatisticsCells,
  now: number,
): CsvValue[] {
  const goal: Goal = metricOfGoal(test.goal);
  return [
    storeName,
    storeId,
    test.id,
    test.title,
    test.status,
    test.stage,
    test.goal,
    test.device,
    test.visitorOption,
    test.campaign,
    test.tags,
    test.priority,
    test.surfaceArea,
    test.impact,
    test.effort,
    test.implemented,
    utc(test.createdAt),
    utc(test.startAt),
    utc(test.endAt),
    daysRunning(test.startAt, test.endAt, now),
    test.controlTraffic,
    test.variantTraffic,
    results?.control.visitors ?? null,
    results?.variant.visitors ?? null,
    goal?.rate ?? null,
    results ? goalValue(results, 'control', goal) : null,
    results ? goalValue(results, 'variant', goal) : null,
    results ? fractionCell(results.lift) : null,
    results?.variantProbabilityWin ?? null,
    lifecycle.tier,
    lifecycle.leading,
    test.hypothesis,
    ...statistics,
  ];
}

/**
 * One row of the tests report from a parsed test and its (validated) results, if any, with every
 * statistic computed afresh: the reference the cache-reading rows are checked against, and the row
 * of a test whose kept statistics cannot be used (see keptStatistics).
 */
export function testRow(
  storeName: string,
  storeId: string,
  test: Test,
  results: TestResults | null,
  now: number,
): CsvValue[] {
  const cells: TestCells = {
    id: test.id,
    title: test.title,
    status: test.status,
    stage: test.stage,
    goal: test.goal,
    device: test.device,
    visitorOption: test.visitorOption,
    campaign: test.campaign ? (test.campaign.name ?? test.campaign.id ?? null) : null,
    tags: tagsCell(test.tags.map((tag) => tag.name)),
    priority: test.priority,
    surfaceArea: test.surfaceArea,
    impact: test.impact,
    effort: test.effort,
    implemented: test.implemented,
    createdAt: test.createdAt,
    startAt: test.startAt,
    endAt: test.endAt,
    controlTraffic: test.control.traffic,
    variantTraffic: test.variant?.traffic ?? null,
    hypothesis: test.hypothesisDescription,
  };
  const lifecycle = results?.lifecycle ?? null;
  return rowCells(
    storeName,
    storeId,
    cells,
    results,
    { tier: lifecycle?.tier ?? null, leading: lifecycle?.leadingVariant ?? null },
    results ? statisticsCells(analyse(test, results, now)) : NO_STATISTICS,
    now,
  );
}

function cachedCells(row: CachedTestRow): TestCells {
  const tags = parseJson(row.tagNames);
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    stage: row.stage,
    goal: row.goal,
    device: row.device,
    visitorOption: row.visitorOption,
    campaign: row.campaignName ?? row.campaignId,
    tags: tagsCell(Array.isArray(tags) ? tags.map(String) : []),
    priority: row.priority,
    surfaceArea: row.surfaceArea,
    impact: row.impact,
    effort: row.effort,
    implemented: row.implemented === null ? null : row.implemented === 1,
    createdAt: row.createdAt,
    startAt: row.startAt,
    endAt: row.endAt,
    controlTraffic: row.controlTraffic,
    variantTraffic: row.variantTraffic,
    hypothesis: row.hypothesis,
  };
}

/**
 * Whether the alerts kept on the row are the ones this export would make: they were made from this
 * very test record (its updatedAt is the one the results were fetched for) with the results' fetch
 * time as the clock, and the only rule that reads the clock (missing days of a test without an end)
 * gives the same answer on the export's day.
 */
function keptAlertsHold(row: CachedTestRow, now: number): boolean {
  if (row.alerts === null || row.fetchedAt === null) return false;
  if (row.fetchedForUpdatedAt !== row.updatedAt) return false;
  if (dayNumberOfTimestamp(row.endAt) !== null) return true;
  const fetched = Date.parse(row.fetchedAt);
  return Number.isFinite(fetched) && Math.floor(fetched / DAY_MS) === Math.floor(now / DAY_MS);
}

/** The binary goal's P(win) and interval as the kept call has them, or null when it cannot say. */
function keptGoalFigures(
  row: CachedTestRow,
  rate: 'cvr' | 'acr' | 'ctr',
): [number | null, number | null, number | null] | null {
  const decision = parseJson(row.decisionJson);
  if (typeof decision !== 'object' || decision === null) return null;
  const { version, goal } = decision as Partial<Decision>;
  if (version !== DECISION_RULES_VERSION || !goal || goal.metric !== rate) return null;
  // The call's goal figures are the binary analysis of the totals when the counts are binary
  // (approximate: false); otherwise the report, like analyseTest, has none.
  return goal.approximate ? [null, null, null] : [goal.pWin, goal.liftLow, goal.liftHigh];
}

/**
 * The statistics of a test from what the cache keeps: the call's goal figures (else the binary
 * analysis of the totals, memoised by counts), the revenue interval of the days, the sample-ratio test
 * of the totals and the row's alerts. Null when they cannot stand for a fresh analysis.
 */
function keptStatistics(
  row: CachedTestRow,
  packed: Uint8Array,
  resultsText: () => string,
  now: number,
): { results: ResultsHead; statistics: StatisticsCells } | null {
  if (!keptAlertsHold(row, now)) return null;
  const alerts = parseJson(row.alerts);
  if (!Array.isArray(alerts)) return null;
  const rate = metricOfGoal(row.goal)?.rate ?? null;
  let results: ResultsHead | null;
  let low: number | null = null;
  let high: number | null = null;
  let pWin: number | null = null;
  if (rate === 'rpv' || rate === 'aov') {
    // The revenue interval is made from the days: read from the text, else the record parsed whole.
    const text = resultsText();
    const head = resultsHead(text);
    let days = head === null ? null : revenueDays(text, head);
    results = head;
    if (days === null || results === null) {
      const whole = parseJson(text) as TestResults | null;
      if (typeof whole !== 'object' || whole === null) return null;
      days = dailySeries(whole.daily).days;
      results = whole;
    }
    const revenue = revenueLift(days, rate);
    low = revenue?.liftCiLow ?? null;
    high = revenue?.liftCiHigh ?? null;
  } else {
    // The totals alone: only the text before the daily series is decompressed.
    results = packedResultsHead(packed) ?? (parseJson(resultsText()) as TestResults | null);
    if (typeof results !== 'object' || results === null) return null;
    if (rate !== null) {
      const figures = keptGoalFigures(row, rate);
      if (figures !== null) [pWin, low, high] = figures;
      else {
        const binary = analyseBinary(results.control, results.variant, rate);
        [pWin, low, high] = [
          binary?.pWin ?? null,
          binary?.liftCiLow ?? null,
          binary?.liftCiHigh ?? null,
        ];
      }
    }
  }
  const srm =
    row.variantTraffic === null
      ? null
      : sampleRatioTest(
          results.control.visitors,
          results.variant.visitors,
          row.controlTraffic,
          row.variantTraffic,
        ).pValue;
  return { results, statistics: [pWin, low, high, srm, alertsCell(alerts.map(String))] };
}

/** The row of a test whose kept statistics cannot be used: its records parsed and analysed afresh. */
function analysedRow(
  ctx: ReportContext,
  row: CachedTestRow,
  resultsText: string | null,
): CsvValue[] | null {
  const test = Test.safeParse(parseJson(testRawJson(ctx.db, row.seq)));
  if (!test.success) return null;
  const results = resultsText === null ? null : TestResults.safeParse(parseJson(resultsText));
  return testRow(
    row.storeName,
    row.storeId,
    test.data,
    results?.success ? results.data : null,
    ctx.scope.now,
  );
}

/**
 * The cells of one cached test: its typed columns and the statistics kept with its results; a test
 * whose kept statistics would differ from a fresh analysis (see keptAlertsHold) is analysed afresh,
 * and is then skipped when its record no longer parses, as it always was.
 */
function cachedRow(ctx: ReportContext, row: CachedTestRow): CsvValue[] | null {
  const now = ctx.scope.now;
  const lifecycle = { tier: row.tier, leading: row.leading };
  if (row.resultsPacked === null) {
    return rowCells(
      row.storeName,
      row.storeId,
      cachedCells(row),
      null,
      lifecycle,
      NO_STATISTICS,
      now,
    );
  }
  const packed = row.resultsPacked;
  let text: string | null = null;
  // The whole record's text, unpacked when something needs more than its totals.
  const resultsText = () => (text ??= unpackJson(packed));
  let kept: ReturnType<typeof keptStatistics>;
  try {
    kept = keptStatistics(row, packed, resultsText, now);
  } catch {
    // A record the reads above cannot take is analysed as it always was, failures included.
    kept = null;
  }
  if (kept === null) return analysedRow(ctx, row, resultsText());
  return rowCells(
    row.storeName,
    row.storeId,
    cachedCells(row),
    kept.results,
    lifecycle,
    kept.statistics,
    now,
  );
}

/**
 * The sign-off cells of each row (SIGN_OFF_COLUMNS), or null when no store the export covers is shared:
 * then the rows, like the columns, are as they always were. Each store's layer is read once.
 */
function signOffCells(
  ctx: ReportContext,
): ((storeId: string, testId: string, call: string | null) => CsvValue[]) | null {
  if (!anyStoreShared(ctx.db, ctx.scope.filter.storeId)) return null;
  const stores = new Map<string, StoreSignOffs | null>();
  return (storeId, testId, call) => {
    if (!stores.has(storeId)) stores.set(storeId, storeSignOffs(ctx.db, storeId));
    const signOffs = stores.get(storeId);
    const signOff = signOffs ? signOffFor(signOffs, testId, call) : null;
    if (signOff === null) return [null, null, null, null];
    const approved = signOff.state === 'approved';
    return [
      signOff.stale ? 'stale' : signOff.state,
      approved ? signOff.approvedBy : signOff.proposedBy,
      utc(approved ? signOff.approvedAt : signOff.proposedAt),
      signOff.call,
    ];
  };
}

/**
 * One row per test, read from the typed columns and what the cache keeps with the results (the
 * list's alerts, the call's goal figures): records are validated once, when synced, and analysed once,
 * when their results are written, never again per export.
 */
export function* testsRows(ctx: ReportContext): Generator<CsvValue[]> {
  // Notes are short and few (one per test at most): read once, looked up per row.
  const notes = notesFor(ctx.db, ctx.scope.filter.storeId);
  const signOffs = signOffCells(ctx);
  const rows = scopedRows(ctx, { shape: 'cachedTests', batch: BATCH_WITH_RESULTS });
  for (const row of rows) {
    const cells = cachedRow(ctx, row);
    if (cells === null) continue;
    const note = notes.get(noteKey(row.storeId, row.id)) ?? '';
    yield [
      ...cells,
      note === '' ? null : note,
      row.decision,
      row.decisionReason === null ? null : oneLine(row.decisionReason),
      row.daysToDecision,
      row.goalLift,
      row.goalPWin,
      ...guardrailCells(row.decisionJson),
      ...(signOffs?.(row.storeId, row.id, row.decision) ?? []),
    ];
  }
}

/**
 * The rows as every statistic analysed afresh from the parsed records would give them: what testsRows
 * gave before it read the cache's statistics, kept as the reference its test compares with.
 */
export function* analysedTestsRows(ctx: ReportContext): Generator<CsvValue[]> {
  const notes = notesFor(ctx.db, ctx.scope.filter.storeId);
  const signOffs = signOffCells(ctx);
  for (const row of scopedTests(ctx, true)) {
    const test = Test.safeParse(parseJson(row.testJson));
    if (!test.success) continue;
    const results =
      row.resultsJson === null ? null : TestResults.safeParse(parseJson(row.resultsJson));
    const note = notes.get(noteKey(row.storeId, test.data.id)) ?? '';
    yield [
      ...testRow(
        row.storeName,
        row.storeId,
        test.data,
        results?.success ? results.data : null,
        ctx.scope.now,
      ),
      note === '' ? null : note,
      row.decision,
      row.decisionReason === null ? null : oneLine(row.decisionReason),
      row.daysToDecision,
      row.goalLift,
      row.goalPWin,
      ...guardrailCells(row.decisionJson),
      ...(signOffs?.(row.storeId, test.data.id, row.decision) ?? []),
    ];
  }
}

export const testsReport: ReportDefinition = {
  name: 'tests',
  description:
    'One row per test: settings, dates, the goal’s figures from the API and Splitbook’s statistics.',
  perTest: true,
  columns: TESTS_COLUMNS,
  columnsFor: (ctx) =>
    anyStoreShared(ctx.db, ctx.scope.filter.storeId)
      ? [...TESTS_COLUMNS, ...SIGN_OFF_COLUMNS]
      : TESTS_COLUMNS,
  rows: testsRows,
};
