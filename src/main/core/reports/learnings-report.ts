// The `learnings` report: every concluded test (ship, keep the control, no difference) with its lift at the
// call, the user's takeaway and, for a shipped winner, its lift shrunk toward the store's mean and its
// estimated yearly value with every assumption.
import { TestFilter } from '#shared/contract/index';
import {
  concludedRecords,
  impactOf,
  storePriors,
  storeValuation,
  type ConcludedRecord,
} from '../programme/learnings';
import type { CsvValue } from './csv';
import { text, type Column, type ReportContext, type ReportDefinition } from './types';
import { tagsCell } from './values';

const COLUMNS: readonly Column[] = [
  text('store', 'store name', 'cache'),
  text('store_id', "Splitbook's id of the store", 'cache'),
  text('test_id', 'UUID'),
  text('title', 'text'),
  text('status', 'as sent (unknown values kept)'),
  text('goal', 'as sent'),
  text(
    'decision',
    "Splitbook's call on the goal: ship, keep_control or no_difference",
    'Splitbook',
  ),
  {
    name: 'decided_on',
    kind: 'date',
    unit: 'YYYY-MM-DD, the day of the data the call was made on',
    source: 'Splitbook',
  },
  {
    name: 'decision_day',
    kind: 'integer',
    unit: 'the day of the test the call was made on (1 = the launch day): the time from launch to decision',
    source: 'Splitbook',
  },
  {
    name: 'goal_lift',
    kind: 'fraction',
    unit: "fraction, the goal's relative lift at the call",
    source: 'Splitbook',
  },
  {
    name: 'lift_low',
    kind: 'fraction',
    unit: "fraction, lower end of the call's interval of that lift (valid under daily checks)",
    source: 'Splitbook',
  },
  {
    name: 'lift_high',
    kind: 'fraction',
    unit: 'fraction, upper end of that interval',
    source: 'Splitbook',
  },
  text('tags', 'tag names joined with "; " (a line break inside a name becomes a space)'),
  text('surface_area', 'as sent'),
  {
    name: 'implemented',
    kind: 'boolean',
    unit: 'true/false; empty when the API says nothing',
    source: 'API',
  },
  text(
    'takeaway',
    'your one line on the test (kept on this computer, never sent to the API); empty when none',
    'user',
  ),
  {
    name: 'shrunk_lift',
    kind: 'fraction',
    unit: "ship only: fraction, the goal's lift shrunk toward the mean of the store's concluded tests (empirical Bayes; as measured with fewer than 3)",
    source: 'Splitbook',
  },
  {
    name: 'shrunk_low',
    kind: 'fraction',
    unit: 'fraction, lower end of its 95% interval',
    source: 'Splitbook',
  },
  {
    name: 'shrunk_high',
    kind: 'fraction',
    unit: 'fraction, upper end of its 95% interval',
    source: 'Splitbook',
  },
  {
    name: 'yearly_value',
    kind: 'money',
    unit: "ship only, an estimate: shrunk_lift × the store's visitors a day × 365 × its revenue per visitor, store currency; empty without traffic to go by",
    source: 'Splitbook',
  },
  {
    name: 'yearly_low',
    kind: 'money',
    unit: 'store currency, from shrunk_low',
    source: 'Splitbook',
  },
  {
    name: 'yearly_high',
    kind: 'money',
    unit: 'store currency, from shrunk_high',
    source: 'Splitbook',
  },
  text(
    'impact_assumptions',
    'ship only: every assumption of the yearly value, in one line',
    'Splitbook',
  ),
];

/** The store list's order, then the latest call first. */
function byStoreThenLatest(order: Map<string, number>) {
  return (a: ConcludedRecord, b: ConcludedRecord) =>
    (order.get(a.storeId) ?? 0) - (order.get(b.storeId) ?? 0) ||
    (b.decidedOn ?? '').localeCompare(a.decidedOn ?? '') ||
    a.title.localeCompare(b.title);
}

function* learningsRows(ctx: ReportContext): Generator<CsvValue[]> {
  const { db, scope } = ctx;
  // Lifts are shrunk toward every concluded test of their store, whatever the filter keeps.
  const everyConcluded = concludedRecords(db, TestFilter.parse({ storeId: scope.filter.storeId }));
  const priors = storePriors(everyConcluded);
  const order = new Map<string, number>();
  for (const record of everyConcluded)
    if (!order.has(record.storeId)) order.set(record.storeId, order.size);
  const kept = concludedRecords(db, scope.filter)
    .filter((record) => scope.testId === null || record.testId === scope.testId)
    .sort(byStoreThenLatest(order));
  const valuation = storeValuation(db);
  ctx.progress.total = kept.length;
  for (const record of kept) {
    ctx.progress.done += 1;
    const impact = impactOf(record, priors.get(record.storeId) ?? null, valuation);
    yield [
      record.storeName,
      record.storeId,
      record.testId,
      record.title,
      record.status,
      record.goal,
      record.call,
      record.decidedOn,
      record.days,
      record.lift,
      record.low,
      record.high,
      tagsCell(record.tags),
      record.surfaceArea,
      record.implemented,
      record.takeaway || null,
      impact?.shrunkLift ?? null,
      impact?.low ?? null,
      impact?.high ?? null,
      impact?.yearly?.value ?? null,
      impact?.yearly?.low ?? null,
      impact?.yearly?.high ?? null,
      impact?.assumptions ?? null,
    ];
  }
}

export const learningsReport: ReportDefinition = {
  name: 'learnings',
  description:
    'Every concluded test (ship, keep the control, no difference) with its lift at the call, your takeaway, and each winner’s estimated yearly value.',
  perTest: false,
  columns: COLUMNS,
  rows: learningsRows,
};
