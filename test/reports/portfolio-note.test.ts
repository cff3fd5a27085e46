// The `portfolio` report (one row per store plus a total, equal to the Portfolio view's figures) and the
// `tests` report's `note` column (the user's local note, last), both parsed back with csv-parse.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TESTS_COLUMNS } from '#core/reports/tests-report';
import { PORTFOLIO_COLUMNS } from '#core/review/portfolio';
import { TestFilter } from '#shared/contract/index';
import { uuid } from '../db/fixtures';
import { numberCell, PAYLOADS, parseCsv, reportFixture, request } from './support';

let fixture: Awaited<ReturnType<typeof reportFixture>>;

let files = 0;

/** Exports at the core's clock, the same the Portfolio view reads its 90 days from. */
async function exported(
  name: Parameters<typeof request>[0],
  fields: Parameters<typeof request>[1] = {},
) {
  const file = join(fixture.dir, `${name}-${(files += 1)}.csv`);
  const rows = await fixture.core.reports.writeFile(request(name, fields), file);
  const records = parseCsv(readFileSync(file, 'utf8'));
  expect(records).toHaveLength(rows);
  return records;
}

beforeAll(async () => {
  fixture = await reportFixture();
}, 120_000);
afterAll(async () => fixture.remove());

describe('tests report: note column', () => {
  it('follows the statistics (only the decision columns come after it) and holds each test’s note, empty without one, neutralised like any text', async () => {
    const names = TESTS_COLUMNS.map((c) => c.name);
    expect(names.slice(names.indexOf('alerts'))).toEqual([
      'alerts',
      'note',
      'decision',
      'decision_reason',
      'days_to_decision',
      'goal_lift',
      'goal_p_win',
      'guardrail',
      'guardrail_verdict',
      'guardrail_lift',
      'guardrail_ci_low',
      'guardrail_ci_high',
    ]);
    const rows = await fixture.core.services.tests.list({
      ...TestFilter.parse({ storeId: 'demo' }),
      sort: { key: 'updatedAt', dir: 'desc' },
      cursor: null,
      limit: 2,
    });
    const [first, second] = rows.rows;
    if (!first || !second) throw new Error('the fixture has fewer than two tests');
    await fixture.core.services.notes.set({
      storeId: 'demo',
      testId: first.id,
      body: 'Client asked, re-run in May',
    });
    await fixture.core.services.notes.set({
      storeId: 'demo',
      testId: uuid(9001, 1),
      body: PAYLOADS[0] ?? '',
    });
    const records = await exported('tests');
    expect(Object.keys(records[0] ?? {}).at(-11)).toBe('note');
    const byId = new Map(records.map((r) => [r['test_id'], r]));
    expect(byId.get(first.id)?.['note']).toBe('Client asked, re-run in May');
    expect(byId.get(second.id)?.['note']).toBe('');
    expect(byId.get(uuid(9001, 1))?.['note']).toBe(`'${PAYLOADS[0] ?? ''}`);
  });
});

describe('portfolio report', () => {
  it('has one row per store and a total row, equal to the Portfolio view', async () => {
    const view = await fixture.core.services.portfolio.figures({});
    const all = await exported('portfolio', { filter: TestFilter.parse({}) });
    expect(Object.keys(all[0] ?? {})).toEqual([...PORTFOLIO_COLUMNS]);
    expect(all).toHaveLength(view.stores.length + 1);
    const figures = [...view.stores, view.total];
    all.forEach((row, i) => {
      const f = figures[i];
      if (!f) throw new Error(`no figures for row ${i}`);
      expect(row['store_id']).toBe(f.storeId ?? '');
      expect(row['store']).toBe(f.storeName);
      expect(numberCell(row['tests'])).toBe(f.tests);
      expect(numberCell(row['running'])).toBe(f.running);
      expect(numberCell(row['counted_90d'])).toBe(f.ended.total);
      expect(numberCell(row['won'])).toBe(f.ended.won);
      expect(numberCell(row['lost'])).toBe(f.ended.lost);
      expect(numberCell(row['inconclusive'])).toBe(f.ended.inconclusive);
      expect(numberCell(row['flat'])).toBe(f.ended.flat);
      if (f.winRate === null) expect(row['win_rate']).toBe('');
      else expect(numberCell(row['win_rate'])).toBeCloseTo(f.winRate, 4);
      expect(row['winners_change_revenue'] === '').toBe(f.winnersChangeRevenue === null);
    });
    expect(all.at(-1)?.['store']).toBe('All stores');
    expect(all.at(-1)?.['winners_change_revenue']).toBe('');
  });

  it('scoped to one store, has that store’s row only', async () => {
    const one = await exported('portfolio');
    expect(one.map((r) => r['store_id'])).toEqual(['demo']);
  });
});
