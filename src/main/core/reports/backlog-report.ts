// The `backlog` report: the tests never launched, ranked as the programme's backlog ranks them by default
// (impact ÷ effort, ties by priority), each with the planner's days at its store's traffic.
import { SCORE_WORDS } from '#shared/domain/programme/index';
import { backlogItems, rankedBacklog } from '../programme/backlog';
import type { CsvValue } from './csv';
import { text, type Column, type ReportContext, type ReportDefinition } from './types';
import { oneLine, tagsCell, utc } from './values';

/** The score the report ranks by: the backlog's default. */
const SCORE = 'impact-per-effort';

const SCALE = "the API's integer as sent; its scale is the store's own (the API states none)";

const COLUMNS: readonly Column[] = [
  text('store', 'store name', 'cache'),
  text('store_id', "Splitbook's id of the store", 'cache'),
  text('test_id', 'UUID'),
  text('title', 'text'),
  text('status', 'draft, scheduled or incompatible, as sent'),
  text('stage', 'as sent'),
  text('goal', 'as sent'),
  text('tags', 'tag names joined with "; " (a line break inside a name becomes a space)'),
  text('surface_area', 'as sent'),
  text('priority', 'as sent'),
  { name: 'impact', kind: 'integer', unit: SCALE, source: 'API' },
  { name: 'effort', kind: 'integer', unit: SCALE, source: 'API' },
  {
    name: 'score',
    kind: 'number',
    unit: `${SCORE_WORDS[SCORE]}, so it compares best within a store; empty when impact or effort is missing or effort is 0`,
    source: 'Splitbook',
  },
  {
    name: 'rank',
    kind: 'integer',
    unit: '1 first: highest score, ties by priority (critical … lowest, then other values, then none), then title; unscored last',
    source: 'Splitbook',
  },
  {
    name: 'planner_days',
    kind: 'integer',
    unit: "days the test needs to detect the minimum effect on its goal with 80% power at the store's traffic (its tests' last 28 days); empty without traffic or for a goal Splitbook does not know",
    source: 'Splitbook',
  },
  text('planner_text', "the planner's sentence, or why there is no estimate", 'Splitbook'),
  text(
    'pending_fields',
    'fields with edits not yet confirmed by the store, joined with "; "; empty when none',
    'user',
  ),
  { name: 'updated_at', kind: 'datetime', unit: 'ISO 8601, UTC', source: 'API' },
];

function* backlogRows(ctx: ReportContext): Generator<CsvValue[]> {
  const items = backlogItems(ctx.db, ctx.scope.filter).filter(
    (item) => ctx.scope.testId === null || item.testId === ctx.scope.testId,
  );
  ctx.progress.total = items.length;
  for (const row of rankedBacklog(items, SCORE)) {
    ctx.progress.done += 1;
    yield [
      row.storeName,
      row.storeId,
      row.testId,
      row.title,
      row.status,
      row.stage,
      row.goal,
      tagsCell(row.tags),
      row.surfaceArea,
      row.priority,
      row.impact,
      row.effort,
      row.score,
      row.rank,
      row.plannerDays,
      oneLine(row.plannerText),
      row.pendingFields.join('; ') || null,
      utc(row.updatedAt),
    ];
  }
}

export const backlogReport: ReportDefinition = {
  name: 'backlog',
  description:
    'Tests not launched (draft, scheduled, incompatible), ranked by impact ÷ effort, with the planner’s days at the store’s traffic.',
  perTest: false,
  columns: COLUMNS,
  rows: backlogRows,
};
