// The `tests` report: one row per test in scope, the API's figures beside Splitbook's own statistics.
import { Test, TestResults } from '../../../shared/api';
import { metricOfGoal } from '../../../shared/domain/metrics';
import { noteKey, notesFor } from '../db/notes';
import { analyseTest, type TestAnalysis } from '../../../shared/domain/statistics';
import type { CsvValue } from './csv';
import { scopedTests } from './source';
import { text, type Column, type ReportContext, type ReportDefinition } from './types';
import { fraction, oneLine, parseJson, tagsCell, utc } from './values';

const DAY_MS = 86_400_000;

export const TESTS_COLUMNS: readonly Column[] = [
  text('store', 'store name', 'cache'),
  text('store_id', "Splitbook's id of the store", 'cache'),
  text('test_id', 'UUID'),
  text('title', 'text'),
  text('status', 'as sent (unknown values kept)'),
  text('stage', 'as sent'),
  text('goal', 'as sent'),
  text('device', 'as sent'),
  text('visitor_option', 'as sent'),
  text('campaign', 'campaign name (id when the name is missing)'),
  text('tags', 'tag names joined with "; " (a line break inside a name becomes a space)'),
  text('priority', 'as sent'),
  text('surface_area', 'as sent'),
  { name: 'impact', kind: 'integer', unit: 'integer as sent', source: 'API' },
  { name: 'effort', kind: 'integer', unit: 'integer as sent', source: 'API' },
  { name: 'implemented', kind: 'boolean', unit: 'true/false', source: 'API' },
  { name: 'created_at', kind: 'datetime', unit: 'ISO 8601, UTC', source: 'API' },
  { name: 'start_at', kind: 'datetime', unit: 'ISO 8601, UTC', source: 'API' },
  { name: 'end_at', kind: 'datetime', unit: 'ISO 8601, UTC', source: 'API' },
  {
    name: 'days_running',
    kind: 'integer',
    unit: 'whole days from start_at to end_at (or the export time)',
    source: 'Splitbook',
  },
  {
    name: 'control_traffic',
    kind: 'integer',
    unit: "the control side's traffic integer as sent (unit not stated by the API)",
    source: 'API',
  },
  {
    name: 'variant_traffic',
    kind: 'integer',
    unit: "the variant side's traffic integer as sent; empty without a variant",
    source: 'API',
  },
  { name: 'control_visitors', kind: 'integer', unit: 'visitors', source: 'API' },
  { name: 'variant_visitors', kind: 'integer', unit: 'visitors', source: 'API' },
  text(
    'goal_metric',
    'cvr, acr, ctr, rpv or aov; empty for a goal Splitbook does not know',
    'Splitbook',
  ),
  {
    name: 'control_goal_value',
    kind: 'number',
    unit: 'fraction for cvr/acr/ctr (API percent ÷ 100), store currency for rpv/aov',
    source: 'API',
  },
  { name: 'variant_goal_value', kind: 'number', unit: 'as control_goal_value', source: 'API' },
  {
    name: 'relative_lift',
    kind: 'fraction',
    unit: "fraction (the API's lift in percent ÷ 100)",
    source: 'API',
  },
  {
    name: 'api_variant_p_win',
    kind: 'fraction',
    unit: "0..1, the API's variantProbabilityWin",
    source: 'API',
  },
  text('tier', "the goal's lifecycle tier as sent"),
  text('leading', "the lifecycle's leadingVariant as sent"),
  text('hypothesis', 'text'),
  {
    name: 'p_win',
    kind: 'fraction',
    unit: '0..1, P(variant beats control) on the goal rate (cvr/acr/ctr only)',
    source: 'Splitbook',
  },
  {
    name: 'lift_ci_low',
    kind: 'fraction',
    unit: "fraction, lower end of the goal lift's 95% credible interval (rpv/aov: approximate)",
    source: 'Splitbook',
  },
  {
    name: 'lift_ci_high',
    kind: 'fraction',
    unit: 'fraction, upper end of that interval',
    source: 'Splitbook',
  },
  {
    name: 'srm_p',
    kind: 'number',
    unit: 'p-value of the sample-ratio test (0..1); empty when not judged',
    source: 'Splitbook',
  },
  text('alerts', 'data-quality alert codes joined with "; "', 'Splitbook'),
  text(
    'note',
    'your note on the test (kept on this computer, never sent to the API); empty when none',
    'user',
  ),
  text(
    'decision',
    "Splitbook's call on the goal: ship, keep_control, no_difference, keep_running, cannot_conclude or check_data; empty without results or a variant",
    'Splitbook',
  ),
  text('decision_reason', 'the call in one line, with its figures', 'Splitbook'),
  {
    name: 'days_to_decision',
    kind: 'integer',
    unit: 'whole days until a call is expected (keep_running, cannot_conclude); empty when not waiting',
    source: 'Splitbook',
  },
  {
    name: 'goal_lift',
    kind: 'fraction',
    unit: "fraction, the goal's relative lift from the sides' totals (the list's Lift)",
    source: 'Splitbook',
  },
  {
    name: 'goal_p_win',
    kind: 'fraction',
    unit: "0..1, the chance the variant beats the control on the goal, from the totals (the list's P(win); rpv/aov: approximate)",
    source: 'Splitbook',
  },
];

type Goal = { rate: 'cvr' | 'rpv' | 'aov' | 'acr' | 'ctr' } | null;

function goalValue(results: TestResults, side: 'control' | 'variant', goal: Goal): number | null {
  if (!goal) return null;
  const value = results[side][goal.rate];
  return goal.rate === 'rpv' || goal.rate === 'aov' ? value : fraction(value);
}

function daysRunning(test: Test, now: number): number | null {
  const start = test.startAt ? Date.parse(test.startAt) : Number.NaN;
  if (!Number.isFinite(start)) return null;
  const endMs = test.endAt ? Date.parse(test.endAt) : Number.NaN;
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

function statisticsCells(analysis: TestAnalysis | null): CsvValue[] {
  if (!analysis) return [null, null, null, null, null];
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
  const alerts = analysis.alerts.map((alert) => alert.code).join('; ');
  return [pWin, low, high, analysis.srm.pValue, alerts === '' ? null : alerts];
}

/** One row of the tests report from a test and its (validated) results, if any. */
export function testRow(
  storeName: string,
  storeId: string,
  test: Test,
  results: TestResults | null,
  now: number,
): CsvValue[] {
  const goal: Goal = metricOfGoal(test.goal);
  const lifecycle = results?.lifecycle ?? null;
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
    test.campaign ? (test.campaign.name ?? test.campaign.id ?? null) : null,
    tagsCell(test.tags.map((tag) => tag.name)),
    test.priority,
    test.surfaceArea,
    test.impact,
    test.effort,
    test.implemented,
    utc(test.createdAt),
    utc(test.startAt),
    utc(test.endAt),
    daysRunning(test, now),
    test.control.traffic,
    test.variant?.traffic ?? null,
    results?.control.visitors ?? null,
    results?.variant.visitors ?? null,
    goal?.rate ?? null,
    results ? goalValue(results, 'control', goal) : null,
    results ? goalValue(results, 'variant', goal) : null,
    results ? fraction(results.lift) : null,
    results?.variantProbabilityWin ?? null,
    lifecycle?.tier ?? null,
    lifecycle?.leadingVariant ?? null,
    test.hypothesisDescription,
    ...(results ? statisticsCells(analyse(test, results, now)) : [null, null, null, null, null]),
  ];
}

/** A cached test record that no longer parses is skipped; a damaged results record leaves its cells empty. */
export function* testsRows(ctx: ReportContext): Generator<CsvValue[]> {
  // Notes are short and few (one per test at most): read once, looked up per row.
  const notes = notesFor(ctx.db, ctx.scope.filter.storeId);
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
    ];
  }
}

export const testsReport: ReportDefinition = {
  name: 'tests',
  description:
    'One row per test: settings, dates, the goal’s figures from the API and Splitbook’s statistics.',
  perTest: true,
  columns: TESTS_COLUMNS,
  rows: testsRows,
};
