// The `campaigns` and `audiences` reports: a store's active campaigns with their progress counts, and
// its custom audiences with their rules as text and as JSON. Both lists are short (tens per store).
import { CustomAudience, type Rule } from '#shared/api/index';
import { selectorText } from '#shared/domain/selector';
import { audienceReportRows } from '../db/cache/audiences';
import { campaignReportRows } from '../db/cache/campaigns';
import type { CsvValue } from './csv';
import { text, type Column, type ReportContext, type ReportDefinition } from './types';
import { parseJson, utc } from './values';

export const CAMPAIGNS_COLUMNS: readonly Column[] = [
  text('store', 'store name', 'cache'),
  text('store_id', "Splitbook's id of the store", 'cache'),
  text('campaign_id', 'UUID'),
  text('name', 'text'),
  text('objective', 'text as sent'),
  text('goal', 'as sent'),
  text('status', 'as sent (unknown values kept)'),
  { name: 'created_at', kind: 'datetime', unit: 'ISO 8601, UTC', source: 'API' },
  ...(['total', 'live', 'paused', 'draft', 'ended'] as const).map((part): Column => ({
    name: `progress_${part}`,
    kind: 'integer',
    unit: `tests (${part})`,
    source: 'API',
  })),
];

function* campaignRows(ctx: ReportContext): Generator<CsvValue[]> {
  const rows = campaignReportRows(ctx.db, ctx.scope.filter.storeId);
  ctx.progress.total = rows.length;
  for (const r of rows) {
    ctx.progress.done += 1;
    yield [
      r.storeName,
      r.storeId,
      r.id,
      r.name,
      r.objective,
      r.goal,
      r.status,
      utc(r.createdAt),
      r.total,
      r.live,
      r.paused,
      r.draft,
      r.ended,
    ];
  }
}

export const campaignsReport: ReportDefinition = {
  name: 'campaigns',
  description: 'Active campaigns with how many of their tests are live, paused, draft and ended.',
  perTest: false,
  columns: CAMPAIGNS_COLUMNS,
  rows: campaignRows,
};

export const AUDIENCES_COLUMNS: readonly Column[] = [
  text('store', 'store name', 'cache'),
  text('store_id', "Splitbook's id of the store", 'cache'),
  text('audience_id', 'UUID'),
  text('name', 'text'),
  text(
    'rules',
    'each rule as "dimension operator value, value" (a selector in words, or as key: value pairs), rules joined with "; " (how rules combine is not stated by the API)',
    'Splitbook',
  ),
  text('rules_json', 'the rules as the API sent them, JSON'),
  {
    name: 'test_count',
    kind: 'integer',
    unit: 'cached tests (not removed) that target the audience',
    source: 'cache',
  },
];

/** A rule as a reader would say it: `country in FR, BE`; a selector as shared/domain/selector reads it. */
export function ruleText(rule: Rule): string {
  const text = selectorText(rule.selector);
  const selector = text === null ? '' : ` (${text})`;
  return `${rule.dimension} ${rule.operator} ${rule.values.join(', ')}`.trim() + selector;
}

function* audienceRows(ctx: ReportContext): Generator<CsvValue[]> {
  const rows = audienceReportRows(ctx.db, ctx.scope.filter.storeId);
  ctx.progress.total = rows.length;
  for (const r of rows) {
    ctx.progress.done += 1;
    const audience = CustomAudience.safeParse(parseJson(r.rawJson));
    if (!audience.success) continue;
    const rules = audience.data.rules;
    yield [
      r.storeName,
      r.storeId,
      audience.data.id,
      audience.data.name,
      rules.map(ruleText).join('; ') || null,
      JSON.stringify(rules),
      r.testCount,
    ];
  }
}

export const audiencesReport: ReportDefinition = {
  name: 'audiences',
  description:
    'Custom audiences with their rules as readable text and as JSON, and how many tests use each.',
  perTest: false,
  columns: AUDIENCES_COLUMNS,
  rows: audienceRows,
};
