// The .xlsx workbook (reports/xlsx.ts) holds each report's rows cell for cell, typed as the report's
// columns say (numbers, booleans, dates as dates, text as inline text, never a formula), with the
// column's number format, a frozen bold header and a filter; read back with exceljs and checked
// against the rows the reports generate, on the report fixture's odd records.
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE, USER_DATA_FILE } from '#core/create-core';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import { NumberText } from '#core/reports/csv';
import { REPORTS } from '#core/reports/registry';
import type { CellKind, ReportContext } from '#core/reports/types';
import { XlsxWriter, type SheetColumn, type SheetWriter } from '#core/reports/xlsx';
import { TestFilter } from '#shared/contract/index';
import { fillingDisk, reportFixture, request } from './support';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const FORMATS: Partial<Record<CellKind, string>> = {
  fraction: '0.00%',
  money: '#,##0.00',
  integer: '0',
  date: 'yyyy-mm-dd',
  datetime: 'yyyy-mm-dd hh:mm:ss',
};

let fixture: Awaited<ReturnType<typeof reportFixture>>;
let db: Db;
let workbook: ExcelJS.Workbook;
let file: string;

beforeAll(async () => {
  fixture = await reportFixture();
  db = openDatabase(join(fixture.dir, DATABASE_FILE), {
    userDataFile: join(fixture.dir, USER_DATA_FILE),
  });
  file = join(fixture.dir, 'all.xlsx');
  await fixture.core.reports.writeFile(request('all', { format: 'xlsx' }), file, { now: NOW });
  workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
}, 120_000);
afterAll(async () => {
  db.close();
  await fixture.remove();
});

function context(): ReportContext {
  return {
    db,
    scope: { filter: TestFilter.parse({ storeId: 'demo' }), testId: null, now: NOW },
    progress: { done: 0, total: null },
  };
}

/** What a cell of the report's value reads back as: dates of date columns as Dates. */
function expected(value: unknown, kind: CellKind): unknown {
  if (value === null || value === undefined) return null;
  // A fraction cell's text (the API's digits) is read back as the number it names.
  if (value instanceof NumberText) return value.text === '' ? null : Number(value.text);
  if ((kind === 'date' || kind === 'datetime') && typeof value === 'string') {
    const ms = Date.parse(kind === 'date' ? `${value}T00:00:00Z` : value);
    return Number.isFinite(ms) ? new Date(ms) : value;
  }
  return value;
}

/** A workbook of one sheet written straight with XlsxWriter (`fill` adds its rows), read back with exceljs. */
async function sheetReadBack(
  name: string,
  columns: readonly SheetColumn[],
  number: readonly boolean[],
  fill: (sheet: SheetWriter) => Promise<void>,
): Promise<ExcelJS.Worksheet | undefined> {
  const path = join(fixture.dir, `${name.replace(/\W/g, '-')}.xlsx`);
  const out = createWriteStream(path);
  const writer = new XlsxWriter(out, NOW);
  const sheet = await writer.sheet(name, columns, number);
  await fill(sheet);
  await sheet.end();
  await writer.finish();
  await finished(out);
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(path);
  return book.getWorksheet(name);
}

describe('xlsx workbook', () => {
  it('has a sheet per report holding its rows cell for cell, typed and formatted by column', () => {
    expect(workbook.worksheets.map((s) => s.name)).toEqual(REPORTS.map((r) => r.name));
    for (const report of REPORTS) {
      const sheet = workbook.getWorksheet(report.name);
      if (!sheet) throw new Error(`no sheet ${report.name}`);
      const header = sheet.getRow(1);
      expect(report.columns.map((_, i) => header.getCell(i + 1).value)).toEqual(
        report.columns.map((c) => c.name),
      );
      expect(header.getCell(1).font?.bold).toBe(true);
      expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      const rows = [...report.rows(context())];
      expect(sheet.actualRowCount, report.name).toBe(rows.length + 1);
      rows.forEach((row, r) => {
        const line = sheet.getRow(r + 2);
        report.columns.forEach((column, c) => {
          const cell = line.getCell(c + 1);
          const where = `${report.name} ${cell.address}`;
          expect(cell.type, where).not.toBe(ExcelJS.ValueType.Formula);
          expect(cell.value, where).toEqual(expected(row[c], column.kind));
          if (cell.value !== null && typeof cell.value !== 'string')
            expect(cell.numFmt, where).toBe(FORMATS[column.kind]);
        });
      });
    }
  });

  it('drops characters XML cannot hold, escapes markup and keeps leading spaces', async () => {
    const read = await sheetReadBack(
      "odd's name",
      [
        { name: 'text', kind: 'text' },
        { name: 'n', kind: 'number' },
        { name: 'flag', kind: 'boolean' },
        { name: 'day', kind: 'date' },
      ],
      [false, true, true, false],
      async (sheet) => {
        sheet.row(['a\u0001b <c> & "d"', 1.5, true, 'not a date']);
        sheet.textRow(['  lead', '-0.052', 'false', '2026-02-03']);
      },
    );
    expect(read?.getRow(2).values).toEqual([undefined, 'ab <c> & "d"', 1.5, true, 'not a date']);
    expect(read?.getRow(3).values).toEqual([
      undefined,
      '  lead',
      -0.052,
      false,
      new Date('2026-02-03T00:00:00Z'),
    ]);
  });

  it('deflates a sheet of many chunks as one stream that reads back row for row', async () => {
    // About 6 MB of sheet XML: six chunks of a megabyte, each flushed as the writers flush them.
    const ROWS = 60_000;
    const read = await sheetReadBack(
      'long',
      [
        { name: 'n', kind: 'integer' },
        { name: 'label', kind: 'text' },
      ],
      [true, false],
      async (sheet) => {
        for (let i = 1; i <= ROWS; i++) {
          if (sheet.textRow([String(i), `row ${i} ${'x'.repeat(i % 37)}`])) await sheet.flush();
        }
      },
    );
    expect(read?.rowCount).toBe(ROWS + 1);
    for (const i of [1, 9_999, 30_001, ROWS]) {
      expect(read?.getRow(i + 1).values).toEqual([undefined, i, `row ${i} ${'x'.repeat(i % 37)}`]);
    }
  });

  it('fails with the output’s error when the disk fills mid-sheet', async () => {
    const full = fillingDisk(3);
    full.on('error', () => undefined);
    const writer = new XlsxWriter(full, NOW);
    const sheet = await writer.sheet('full', [{ name: 'label', kind: 'text' }], [false]);
    const filling = (async () => {
      for (let i = 0; i < 200_000; i++) {
        if (sheet.textRow([`row ${i} ${'y'.repeat(i % 41)}`])) await sheet.flush();
      }
      await sheet.end();
    })();
    await expect(filling).rejects.toThrow('ENOSPC');
  });
});
