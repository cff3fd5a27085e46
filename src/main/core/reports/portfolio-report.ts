// The `portfolio` report: the Portfolio view's figures as a table, one row per store plus a total row.
import { PORTFOLIO_COLUMNS, portfolioReport } from '../review/portfolio';
import type { CsvValue } from './csv';
import { text, type Column, type ReportContext, type ReportDefinition } from './types';

const IN_WINDOW =
  'counted_90d tests whose call (made with your decision settings, on its look\u2019s day in the last 90 days) is';

/** Units and sources of PORTFOLIO_COLUMNS, in its order (checked below, so the two cannot drift). */
const COLUMNS: readonly Column[] = [
  text('store_id', "Splitbook's id of the store; empty on the total row", 'cache'),
  text('store', 'store name; "All stores" on the total row', 'cache'),
  { name: 'tests', kind: 'integer', unit: 'cached tests, removed ones excluded', source: 'cache' },
  { name: 'running', kind: 'integer', unit: 'tests with status active', source: 'API' },
  {
    name: 'counted_90d',
    kind: 'integer',
    unit: 'tests counted in the last 90 days: a concluding call made then (any status), or ended then without one (won + lost + flat + inconclusive)',
    source: 'Splitbook',
  },
  { name: 'won', kind: 'integer', unit: `${IN_WINDOW} “Ship the variant” (recommended to ship; the API states no outcome)`, source: 'Splitbook' },
  { name: 'lost', kind: 'integer', unit: `${IN_WINDOW} “Keep the control”`, source: 'Splitbook' },
  {
    name: 'inconclusive',
    kind: 'integer',
    unit: 'tests completed or cancelled with end_at in the last 90 days and no concluding call (cannot conclude, check the data, no results)',
    source: 'Splitbook',
  },
  {
    name: 'win_rate',
    kind: 'fraction',
    unit: 'won ÷ (won + lost + flat), the Learnings’ win rate, 4 decimals; empty when nothing concluded',
    source: 'Splitbook',
  },
  {
    name: 'median_duration_days',
    kind: 'number',
    unit: 'days from start_at to end_at of the tests ended in the last 90 days, 1 decimal',
    source: 'Splitbook',
  },
  {
    name: 'winners_change_revenue',
    kind: 'money',
    unit: "sum of the won tests' changeRevenue, store currency; empty on the total row (currencies may differ)",
    source: 'API',
  },
  { name: 'flat', kind: 'integer', unit: `${IN_WINDOW} “No meaningful difference”`, source: 'Splitbook' },
];

if (COLUMNS.map((c) => c.name).join() !== PORTFOLIO_COLUMNS.join()) {
  throw new Error('The portfolio report’s columns differ from PORTFOLIO_COLUMNS');
}

/** Every store (or the scope's one store) and, for all stores, the total row; the header row is skipped. */
function* portfolioRows(ctx: ReportContext): Generator<CsvValue[]> {
  const storeId = ctx.scope.filter.storeId;
  const rows = [...portfolioReport(ctx.db, ctx.scope.now)].slice(1);
  ctx.progress.total = rows.length;
  for (const row of rows) {
    const [id] = row;
    const isTotal = id === '';
    if (storeId !== null && id !== storeId) continue;
    ctx.progress.done += 1;
    yield row.map((value, i) => (i === 0 && isTotal ? null : value));
  }
}

export const portfolioReportDefinition: ReportDefinition = {
  name: 'portfolio',
  description:
    'One row per store and a total: tests, running, ended in 90 days, won/lost/flat by decision, win rate.',
  perTest: false,
  columns: COLUMNS,
  rows: portfolioRows,
};
