// A LibreOffice headless round-trip: each report's CSV opened with ',' and with ';' as the separator,
// and the .xlsx workbook, converted by soffice and read back cell by cell with exceljs:
// numbers are numbers, dates are dates, no cell is a formula, text with a leading '=' stays text.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { uuid } from '../db/fixtures';
import { reportFixture, request } from './support';

const SOFFICE = ['/usr/bin/soffice', '/usr/lib/libreoffice/program/soffice'].find((p) =>
  existsSync(p),
);
const REPORTS = [
  'tests',
  'metrics',
  'daily',
  'campaigns',
  'audiences',
  'portfolio',
  'backlog',
  'learnings',
] as const;
const { ValueType } = ExcelJS;

let fixture: Awaited<ReturnType<typeof reportFixture>>;

/** soffice converts every file in one run (a run costs seconds); CSV options: separator, '"', UTF-8, row 1, en-US, detect numbers and dates. */
function convert(files: string[], outDir: string, separator: ',' | ';' | null): void {
  if (!SOFFICE) throw new Error('no soffice');
  const filter =
    separator === null
      ? []
      : [`--infilter=CSV:${separator.charCodeAt(0)},34,76,1,,1033,false,true`];
  execFileSync(
    SOFFICE,
    [
      '--headless',
      '--norestore',
      `-env:UserInstallation=file://${join(fixture.dir, 'lo-profile')}`,
      ...filter,
      '--convert-to',
      'xlsx',
      '--outdir',
      outDir,
      ...files,
    ],
    { stdio: 'ignore', timeout: 120_000 },
  );
}

async function cells(file: string): Promise<Map<string, ExcelJS.Cell[][]>> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  const sheets = new Map<string, ExcelJS.Cell[][]>();
  workbook.eachSheet((sheet) => {
    const rows: ExcelJS.Cell[][] = [];
    sheet.eachRow((row) => {
      const list: ExcelJS.Cell[] = [];
      row.eachCell({ includeEmpty: true }, (cell) => list.push(cell));
      rows.push(list);
    });
    sheets.set(sheet.name, rows);
  });
  return sheets;
}

function column(rows: ExcelJS.Cell[][], name: string): ExcelJS.Cell[] {
  const index = (rows[0] ?? []).findIndex((c) => c.value === name);
  expect(index, name).toBeGreaterThanOrEqual(0);
  return rows
    .slice(1)
    .map((r) => r[index])
    .filter((c): c is ExcelJS.Cell => c !== undefined && c.value !== null);
}

function noFormulas(sheets: Map<string, ExcelJS.Cell[][]>): void {
  for (const [name, rows] of sheets) {
    for (const row of rows) {
      for (const cell of row) {
        // LibreOffice saves a boolean as the formula TRUE() or FALSE(): a typed boolean, not a payload.
        if (cell.type === ValueType.Formula && /^(TRUE|FALSE)\(\)$/i.test(cell.formula)) continue;
        expect(cell.type, `${name} ${cell.address} ${String(cell.formula)}`).not.toBe(
          ValueType.Formula,
        );
      }
    }
  }
}

const NO_SOFFICE = 'Skipped: soffice is not installed (apt-get install libreoffice-calc-nogui).';

describe('LibreOffice round-trip', () => {
  const csvDir = () => join(fixture.dir, 'csv');
  beforeEach((ctx) => {
    if (!SOFFICE) ctx.skip(NO_SOFFICE);
  });
  beforeAll(async () => {
    if (!SOFFICE) return;
    fixture = await reportFixture();
    mkdirSync(csvDir());
    for (const name of REPORTS)
      await fixture.core.reports.writeFile(request(name), join(csvDir(), `${name}.csv`));
    await fixture.core.reports.writeFile(
      request('all', { format: 'xlsx' }),
      join(fixture.dir, 'all.xlsx'),
    );
  }, 120_000);
  afterAll(async () => fixture?.remove());

  it('opens each CSV with "," as separator: typed numbers and dates, text payloads as text', async () => {
    const out = join(fixture.dir, 'comma');
    convert(
      REPORTS.map((n) => join(csvDir(), `${n}.csv`)),
      out,
      ',',
    );
    const tests = (await cells(join(out, 'tests.xlsx'))).get('tests') ?? [];
    noFormulas(new Map([['tests', tests]]));
    for (const c of column(tests, 'control_traffic')) expect(c.type).toBe(ValueType.Number);
    const lift = column(tests, 'relative_lift');
    expect(lift.length).toBeGreaterThan(0);
    for (const c of lift) expect(c.type).toBe(ValueType.Number);
    expect(lift.some((c) => c.value === -0.052)).toBe(true);
    const ids = column(tests, 'test_id');
    const odd = tests.find((row) => row.some((c) => c.value === uuid(9001, 1))) ?? [];
    const title = odd[(tests[0] ?? []).findIndex((c) => c.value === 'title')];
    expect(title?.type).toBe(ValueType.String);
    expect(String(title?.value)).toMatch(/^'?=HYPERLINK/);
    expect(ids.every((c) => c.type === ValueType.String)).toBe(true);
    for (const name of [
      'metrics',
      'daily',
      'campaigns',
      'audiences',
      'backlog',
      'learnings',
    ] as const) {
      const sheets = await cells(join(out, `${name}.xlsx`));
      noFormulas(sheets);
    }
    const daily = (await cells(join(out, 'daily.xlsx'))).values().next().value ?? [];
    for (const c of column(daily, 'date')) expect(c.type).toBe(ValueType.Date);
    for (const c of column(daily, 'visitors')) expect(c.type).toBe(ValueType.Number);
    const learnings = (await cells(join(out, 'learnings.xlsx'))).values().next().value ?? [];
    expect(column(learnings, 'goal_lift').length).toBeGreaterThan(0);
    for (const c of column(learnings, 'goal_lift')) expect(c.type).toBe(ValueType.Number);
    for (const c of column(learnings, 'decided_on')) expect(c.type).toBe(ValueType.Date);
    const backlog = (await cells(join(out, 'backlog.xlsx'))).values().next().value ?? [];
    expect(column(backlog, 'score').length).toBeGreaterThan(0);
    for (const c of column(backlog, 'score')) expect(c.type).toBe(ValueType.Number);
  }, 180_000);

  it('opens each CSV with ";" as separator (Excel in many locales): still no formula anywhere', async () => {
    const out = join(fixture.dir, 'semicolon');
    convert(
      REPORTS.map((n) => join(csvDir(), `${n}.csv`)),
      out,
      ';',
    );
    for (const name of REPORTS) {
      const sheets = await cells(join(out, `${name}.xlsx`));
      noFormulas(sheets);
      for (const rows of sheets.values()) {
        for (const row of rows)
          for (const cell of row)
            if (typeof cell.value === 'string') expect(cell.value).not.toMatch(/^[=+@]/);
      }
    }
  }, 180_000);

  it('reads the .xlsx workbook back: a sheet per report, typed cells, percentages, no formulas', async () => {
    const out = join(fixture.dir, 'xlsx-out');
    convert([join(fixture.dir, 'all.xlsx')], out, null);
    for (const file of [join(fixture.dir, 'all.xlsx'), join(out, 'all.xlsx')]) {
      const sheets = await cells(file);
      expect([...sheets.keys()]).toEqual([...REPORTS]);
      noFormulas(sheets);
      const tests = sheets.get('tests') ?? [];
      for (const c of column(tests, 'created_at')) expect(c.type).toBe(ValueType.Date);
      for (const c of column(tests, 'relative_lift')) {
        expect(c.type).toBe(ValueType.Number);
        expect(c.numFmt).toMatch(/%/);
      }
      const odd = tests.find((row) => row.some((c) => c.value === uuid(9001, 1))) ?? [];
      const title = odd[(tests[0] ?? []).findIndex((c) => c.value === 'title')];
      expect(title?.type).toBe(ValueType.String);
      expect(title?.value).toBe('=HYPERLINK("http://evil.example","click")');
      for (const c of column(sheets.get('daily') ?? [], 'date'))
        expect(c.type).toBe(ValueType.Date);
    }
  }, 180_000);
});
