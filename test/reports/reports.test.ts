// Every report exported from a synced simulated store (plus odd records) and parsed back with csv-parse,
// value by value against the cache; formula payloads neutralised; exports fail and cancel cleanly.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '#core/types';
import type { SideStatistics, Test, TestResults } from '#shared/api/index';
import { metricOfGoal } from '#shared/domain/metrics';
import { analysePerMetric, analyseSegments, analyseTest } from '#shared/domain/statistics/index';
import { TestFilter } from '#shared/contract/index';
import { allTestRows } from '../support/core';
import { REPORTS } from '#core/reports/registry';
import { uuid } from '../db/fixtures';
import {
  fillingDisk,
  neutralised,
  numberCell,
  parseCsv,
  PAYLOADS,
  reportFixture,
  request,
} from './support';

const NOW = Date.parse('2026-03-01T12:00:00Z');
let fixture: Awaited<ReturnType<typeof reportFixture>>;
let core: Core;
const texts = new Map<string, string>();

async function exportText(
  name: Parameters<typeof request>[0],
  fields: Parameters<typeof request>[1] = {},
) {
  const file = join(fixture.dir, `${name}-${texts.size}.csv`);
  const rows = await core.reports.writeFile(request(name, fields), file, { now: NOW });
  const text = readFileSync(file, 'utf8');
  return { rows, text, records: parseCsv(text) };
}

beforeAll(async () => {
  fixture = await reportFixture();
  core = fixture.core;
  for (const name of ['tests', 'metrics', 'daily', 'campaigns', 'audiences'] as const) {
    texts.set(name, (await exportText(name)).text);
  }
}, 120_000);
afterAll(async () => fixture.remove());

const records = (name: string) => parseCsv(texts.get(name) ?? '');

async function cached(testId: string): Promise<{ test: Test; results: TestResults | null }> {
  const detail = await core.services.tests.get({ storeId: 'demo', testId });
  const results = await core.services.tests.results({ storeId: 'demo', testId });
  return { test: detail.test, results: results?.results ?? null };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

const iso = (value: string | null) => (value === null ? '' : new Date(value).toISOString());
/** API percent to fraction by moving the decimal point, as the README states. */
const pct = (value: number | null | undefined) =>
  value === null || value === undefined ? null : Number(`${value}e-2`);

describe('format', () => {
  it('is UTF-8 with a BOM, CRLF records and a quoted header; --no-bom leaves the BOM out', async () => {
    const text = texts.get('tests') ?? '';
    expect(text.startsWith('\uFEFF"store","store_id","test_id","title"')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const noBom = await exportText('campaigns', { bom: false });
    expect(noBom.text.startsWith('"store"')).toBe(true);
  });

  it('writes a negative lift as a bare number and null as an empty cell', () => {
    const row = records('tests').find((r) => r['test_id'] === uuid(9001, 1));
    expect(row?.['relative_lift']).toBe('-0.052');
    expect(texts.get('tests')).toMatch(/,-0\.052,/);
    expect(row?.['implemented']).toBe('');
  });
});

describe('tests report', () => {
  it('has one row per cached test in scope, each value equal to the cache', async () => {
    const rows = records('tests');
    const inList = await allTestRows(core, 'demo');
    expect(rows).toHaveLength(inList.length);
    expect(new Set(rows.map((r) => r['test_id']))).toEqual(new Set(inList.map((t) => t.id)));
    for (const row of rows) {
      const { test, results } = await cached(row['test_id'] ?? '');
      const goal = metricOfGoal(test.goal);
      expect(row['store']).toBe('Demo store');
      expect(row['title']).toBe(neutralised(test.title));
      expect(row['status']).toBe(test.status);
      expect(row['stage']).toBe(test.stage);
      expect(row['goal']).toBe(test.goal);
      expect(row['tags']).toBe(
        neutralised(test.tags.map((t) => t.name.replace(/[\r\n]+/g, ' ')).join('; ')),
      );
      expect(row['hypothesis']).toBe(neutralised(test.hypothesisDescription));
      expect(row['priority']).toBe(neutralised(test.priority));
      expect(numberCell(row['impact'])).toBe(test.impact);
      expect(row['implemented']).toBe(test.implemented === null ? '' : String(test.implemented));
      expect(row['created_at']).toBe(iso(test.createdAt));
      expect(row['start_at']).toBe(iso(test.startAt));
      expect(row['end_at']).toBe(iso(test.endAt));
      expect(numberCell(row['control_traffic'])).toBe(test.control.traffic);
      expect(numberCell(row['variant_traffic'])).toBe(test.variant?.traffic ?? null);
      expect(row['goal_metric']).toBe(goal?.rate ?? '');
      expect(numberCell(row['control_visitors'])).toBe(results?.control.visitors ?? null);
      expect(numberCell(row['variant_visitors'])).toBe(results?.variant.visitors ?? null);
      expect(numberCell(row['relative_lift'])).toBe(pct(results?.lift));
      expect(numberCell(row['api_variant_p_win'])).toBe(results?.variantProbabilityWin ?? null);
      expect(row['tier']).toBe(results?.lifecycle.tier ?? '');
      if (results && goal) {
        const side = (s: 'control' | 'variant') =>
          goal.rate === 'rpv' || goal.rate === 'aov'
            ? results[s][goal.rate]
            : pct(results[s][goal.rate]);
        expect(numberCell(row['control_goal_value'])).toBe(side('control'));
        expect(numberCell(row['variant_goal_value'])).toBe(side('variant'));
        const analysis = analyseTest(test, results, { now: NOW });
        const binary =
          goal.rate === 'cvr' || goal.rate === 'acr' || goal.rate === 'ctr'
            ? analysis.perMetric[goal.rate]
            : null;
        if (binary) expect(numberCell(row['p_win'])).toBe(binary.pWin);
        expect(numberCell(row['srm_p'])).toBe(analysis.srm.pValue);
        expect(row['alerts']).toBe(analysis.alerts.map((a) => a.code).join('; '));
      } else {
        expect(row['p_win']).toBe('');
        expect(row['control_goal_value']).toBe('');
      }
    }
  });

  it('keeps unknown enum values, a missing variant and an unknown goal', () => {
    const byId = new Map(records('tests').map((r) => [r['test_id'], r]));
    expect(byId.get(uuid(9001, 1))).toMatchObject({
      status: 'hibernating',
      stage: 'someday',
      start_at: '2026-01-09T22:00:00.000Z',
    });
    expect(byId.get(uuid(9002, 1))).toMatchObject({
      variant_traffic: '',
      tier: 'dormant',
      goal_metric: 'rpv',
    });
    expect(byId.get(uuid(9003, 1))).toMatchObject({
      goal: 'time-on-page',
      goal_metric: '',
      p_win: '',
    });
  });

  it('follows the filter: statuses, and one test', async () => {
    const active = await exportText('tests', {
      filter: TestFilter.parse({ storeId: 'demo', statuses: ['active'] }),
    });
    expect(active.records.length).toBeGreaterThan(0);
    expect(active.records.every((r) => r['status'] === 'active')).toBe(true);
    const one = await exportText('daily', { testId: uuid(9001, 1) });
    expect(new Set(one.records.map((r) => r['test_id']))).toEqual(new Set([uuid(9001, 1)]));
  });
});

const RATES = new Set(['cvr', 'acr', 'ctr']);
const COUNT_OF = { cvr: 'conversions', acr: 'carts', ctr: 'clicks' } as const;

describe('metrics report', () => {
  it('has one row per test × present segment × metric, values equal to the cache', async () => {
    const rows = records('metrics');
    const byTest = groupBy(rows, (r) => r['test_id'] ?? '');
    const withResults = (await allTestRows(core, 'demo')).filter((t) => t.visitors !== null);
    expect(new Set(byTest.keys())).toEqual(new Set(withResults.map((t) => t.id)));
    for (const [testId, testRows] of byTest) {
      const { results } = await cached(testId);
      if (!results) throw new Error('results expected');
      const segments = analyseSegments(results);
      const all = analysePerMetric(results.control, results.variant);
      const present = [
        'all',
        ...(['mobile', 'desktop', 'new', 'returning'] as const).filter(
          (s) => results.control[s] || results.variant[s],
        ),
      ];
      expect([...new Set(testRows.map((r) => r['segment']))]).toEqual(present);
      expect(testRows).toHaveLength(present.length * 9);
      for (const row of testRows) {
        const segment = row['segment'] ?? '';
        const metric = (row['metric'] ?? '') as 'cvr';
        const pick = (side: SideStatistics): SideStatistics | null =>
          segment === 'all' ? side : side[segment as 'mobile'];
        const c = pick(results.control);
        const v = pick(results.variant);
        const value = (s: SideStatistics | null) =>
          s === null ? null : RATES.has(metric) ? pct(s[metric]) : s[metric];
        expect(numberCell(row['control_value'])).toBe(value(c));
        expect(numberCell(row['variant_value'])).toBe(value(v));
        const cv = value(c);
        const vv = value(v);
        expect(numberCell(row['relative_lift'])).toBe(
          cv === null || vv === null || cv === 0 ? null : vv / cv - 1,
        );
        if (RATES.has(metric)) {
          expect(numberCell(row['control_count'])).toBe(c?.[COUNT_OF[metric]] ?? null);
          expect(numberCell(row['variant_visitors'])).toBe(v?.visitors ?? null);
          const stats = segment === 'all' ? all : segments[segment as 'mobile'];
          expect(numberCell(row['p_win'])).toBe(stats?.[metric]?.pWin ?? null);
          expect(numberCell(row['lift_ci_low'])).toBe(stats?.[metric]?.liftCiLow ?? null);
        } else {
          expect(row['control_count']).toBe('');
          expect(row['p_win']).toBe('');
        }
        // Each row says the unit of its value cells, which the column mixes (issue 21, item 13).
        expect(row['unit']).toBe(
          RATES.has(metric)
            ? 'fraction'
            : ['revenue', 'aov', 'rpv'].includes(metric)
              ? 'currency'
              : 'count',
        );
      }
    }
  });

  it('adds its unit column at the end: every earlier column keeps its place', () => {
    const names = REPORTS.find((r) => r.name === 'metrics')?.columns.map((c) => c.name) ?? [];
    expect(names.at(-1)).toBe('unit');
    expect(names.slice(0, 16)).toEqual([
      'store',
      'store_id',
      'test_id',
      'title',
      'segment',
      'metric',
      'control_value',
      'variant_value',
      'relative_lift',
      'control_count',
      'variant_count',
      'control_visitors',
      'variant_visitors',
      'p_win',
      'lift_ci_low',
      'lift_ci_high',
    ]);
  });
});

describe('daily report', () => {
  it('has one row per ISO date × side present, in date order, values equal to the cache', async () => {
    const rows = records('daily');
    const byTest = groupBy(rows, (r) => r['test_id'] ?? '');
    for (const [testId, testRows] of byTest) {
      const { results } = await cached(testId);
      const daily = results?.daily ?? {};
      const dates = Object.keys(daily)
        .filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))
        .sort();
      expect(testRows.map((r) => `${r['date']} ${r['side']}`)).toEqual(
        dates.flatMap((d) => [`${d} control`, `${d} variant`]),
      );
      for (const row of testRows) {
        const side = daily[row['date'] ?? '']?.performance[row['side'] as 'control'];
        if (!side) throw new Error('missing side');
        for (const key of [
          'visitors',
          'visits',
          'clicks',
          'carts',
          'conversions',
          'orders',
          'revenue',
          'aov',
          'rpv',
        ] as const) {
          expect(numberCell(row[key])).toBe(side[key]);
        }
        for (const key of ['cvr', 'acr', 'ctr'] as const)
          expect(numberCell(row[key])).toBe(pct(side[key]));
      }
    }
    expect(byTest.get(uuid(9001, 1))?.map((r) => r['date'])).toEqual([
      '2026-02-01',
      '2026-02-01',
      '2026-02-05',
      '2026-02-05',
    ]);
  });
});

describe('campaigns and audiences reports', () => {
  it('equal the cached lists', async () => {
    const campaigns = await core.services.campaigns.list({ storeId: 'demo' });
    const rows = records('campaigns');
    expect(rows.map((r) => r['campaign_id'])).toEqual(campaigns.map((c) => c.campaign.id));
    for (const [i, row] of rows.entries()) {
      const c = campaigns[i]?.campaign;
      expect(row['name']).toBe(neutralised(c?.name ?? null));
      expect(row['created_at']).toBe(iso(c?.createdAt ?? null));
      expect(numberCell(row['progress_live'])).toBe(c?.progress.live);
      expect(numberCell(row['progress_ended'])).toBe(c?.progress.ended);
    }
    const audiences = await core.services.audiences.list({ storeId: 'demo' });
    const aRows = records('audiences');
    expect(aRows).toHaveLength(audiences.length);
    for (const row of aRows) {
      const a = audiences.find((x) => x.audience.id === row['audience_id']);
      expect(row['name']).toBe(neutralised(a?.audience.name ?? null));
      expect(JSON.parse(row['rules_json'] ?? '')).toEqual(a?.audience.rules);
      expect(numberCell(row['test_count'])).toBe(a?.testCount);
    }
    const payload = aRows.find((r) => r['audience_id'] === uuid(9100, 5));
    // '=1+1' follows a space, not a separator: no spreadsheet starts a cell there.
    expect(payload?.['rules']).toBe('country in =1+1, FR');
    expect(payload?.['name']).toBe(`'${PAYLOADS[0]}`);
  });
});

describe('formula injection (OWASP)', () => {
  it('no text cell of any report can start a formula, whatever the separator', () => {
    for (const [name, text] of texts) {
      for (const row of parseCsv(text)) {
        for (const [column, cell] of Object.entries(row)) {
          if (cell === '' || Number.isFinite(Number(cell))) continue;
          expect(cell, `${name}.${column}`).not.toMatch(/^[=+\-@\t\r\n]/);
          // Split as a spreadsheet set to ';' or ',' would split an unquoted cell: no piece starts a formula
          // unless the cell carries the neutralising quote.
          const pieces = cell.split(/[;,\t|\r\n]/).map((p) => p.trimStart());
          if (pieces.some((p) => /^[=+\-@]/.test(p)))
            expect(cell.startsWith("'"), `${name}.${column}`).toBe(true);
        }
      }
    }
  });

  it('neutralises payloads in titles, tags, hypotheses and audience names; text round-trips otherwise', () => {
    const row = records('tests').find((r) => r['test_id'] === uuid(9001, 1));
    expect(row?.['title']).toBe(`'${PAYLOADS[0]}`);
    expect(row?.['hypothesis']).toBe("'UX; =1+1");
    expect(row?.['tags']).toBe(`'${PAYLOADS.map((p) => p.replace(/[\r\n]+/g, ' ')).join('; ')}`);
    const plain = records('tests').find((r) => r['test_id'] === uuid(9002, 1));
    expect(plain?.['title']).toBe(PAYLOADS[8]);
  });
});

describe('failures', () => {
  it('a cancelled export leaves no file behind', async () => {
    const dir = join(fixture.dir, 'cancel');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    const controller = new AbortController();
    controller.abort();
    await expect(
      core.reports.writeFile(request('daily'), join(dir, 'x.csv'), { signal: controller.signal }),
    ).rejects.toThrow('Export cancelled');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an output that fails shows its own error, not ERR_STREAM_DESTROYED', async () => {
    await expect(core.reports.write(request('daily'), fillingDisk(1))).rejects.toThrow('ENOSPC');
  });

  it('a folder that does not exist gives ENOENT and nothing is written', async () => {
    await expect(
      core.reports.writeFile(request('tests'), join(fixture.dir, 'nope', 'x.csv')),
    ).rejects.toThrow(/ENOENT/);
  });

  it('refuses an unknown store and CSV for every report at once', async () => {
    await expect(
      core.reports.write(
        request('tests', { filter: TestFilter.parse({ storeId: 'zzz' }) }),
        new Writable(),
      ),
    ).rejects.toThrow('Unknown store');
    await expect(core.reports.write(request('all'), new Writable())).rejects.toThrow(
      'One report per CSV',
    );
  });
});
