// Runs one export: checks the scope, then streams a report's rows as CSV, or every chosen report as an
// .xlsx workbook (exceljs's streaming writer), with throttled progress and cancellation.
import type { Writable } from 'node:stream';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type ExcelJS from 'exceljs';
import type { ExportRequest } from '../../../shared/contract';
import { problem } from '../../../shared/problem';
import type { Db } from '../db';
import { BOM, csvRow, csvTextRows, type CsvValue } from './csv';
import { REPORTS, reportByName } from './registry';
import { checkScope } from './source';
import type { CellKind, ReportContext, ReportDefinition } from './types';
import { sinkFor } from './write-file';

export type { ExportRequest };

export type ExportProgressFigures = { rows: number; done: number; total: number | null };

export interface ExportOptions {
  now: number;
  signal?: AbortSignal;
  /** Called at most every PROGRESS_MS and once at the end. */
  onProgress?: (progress: ExportProgressFigures) => void;
}

const PROGRESS_MS = 100;
/** How often the loop lets other work (a cancel, another call) in. */
const YIELD_MS = 25;
const CHUNK_CHARS = 64 * 1024;
/** Excel's limit is 1,048,576 rows; a longer report continues on a sheet named "daily (2)". */
export const MAX_SHEET_ROWS = 1_048_575;

export const CANCELLED_TITLE = 'Export cancelled';

function cancelled(): Error {
  return problem(
    'conflict',
    409,
    CANCELLED_TITLE,
    'The export was cancelled; no file was written.',
  );
}

/** The reports a request names, checked against its format and scope. */
export function reportsOf(db: Db, request: ExportRequest): ReportDefinition[] {
  if (request.report === 'all' && request.format === 'csv') {
    throw problem(
      'validation',
      400,
      'One report per CSV',
      'A CSV file holds one report; choose one, or the .xlsx format for all of them.',
    );
  }
  if (request.testId !== null && request.filter.storeId === null) {
    throw problem(
      'validation',
      400,
      'Which store?',
      'Exporting one test needs the store it belongs to.',
    );
  }
  checkScope(db, request.filter.storeId);
  const reports = request.report === 'all' ? [...REPORTS] : [reportByName(request.report)];
  return request.testId === null ? reports : reports.filter((r) => r.perTest);
}

/** A file name to suggest: splitbook-<report>-<YYYY-MM-DD>.<ext>. */
export function suggestedFileName(
  request: Pick<ExportRequest, 'report' | 'format'>,
  now: number,
): string {
  const date = new Date(now).toISOString().slice(0, 10);
  const name = request.report === 'all' ? 'reports' : request.report;
  return `splitbook-${name}-${date}.${request.format}`;
}

class Pacer {
  private lastYield = Date.now();
  private lastProgress = 0;
  constructor(
    private readonly ctx: ReportContext,
    private readonly options: ExportOptions,
    private readonly rowCount: () => number,
  ) {}

  async tick(): Promise<void> {
    const now = Date.now();
    if (now - this.lastYield < YIELD_MS) return;
    this.lastYield = now;
    await yieldToLoop();
    if (this.options.signal?.aborted) throw cancelled();
    if (now - this.lastProgress >= PROGRESS_MS) {
      this.lastProgress = now;
      this.report();
    }
  }

  report(): void {
    this.options.onProgress?.({
      rows: this.rowCount(),
      done: this.ctx.progress.done,
      total: this.ctx.progress.total,
    });
  }
}

function contextFor(db: Db, request: ExportRequest, now: number): ReportContext {
  return {
    db,
    scope: { filter: request.filter, testId: request.testId, now },
    progress: { done: 0, total: null },
  };
}

/** Kinds whose cells are numbers (or booleans): written as their text, never quoted. */
export const NUMBER_KINDS: ReadonlySet<CellKind> = new Set([
  'integer',
  'number',
  'fraction',
  'money',
  'boolean',
]);

/** A report's data rows as CSV records, from its text rows when it has them. */
function* csvLines(report: ReportDefinition, ctx: ReportContext): Generator<string> {
  if (report.textRows) {
    const line = csvTextRows(report.columns.map((c) => NUMBER_KINDS.has(c.kind)));
    for (const row of report.textRows(ctx)) yield line(row);
  } else {
    for (const row of report.rows(ctx)) yield csvRow(row);
  }
}

/** Writes the CSV of one report to `out` (not ended); returns its data rows. */
export async function writeCsv(
  db: Db,
  request: ExportRequest,
  out: Writable,
  options: ExportOptions,
): Promise<number> {
  const [report] = reportsOf(db, request);
  if (!report)
    throw problem(
      'validation',
      400,
      'Nothing to export',
      'This report does not apply to one test.',
    );
  const ctx = contextFor(db, request, options.now);
  const sink = sinkFor(out);
  let rows = 0;
  const pacer = new Pacer(ctx, options, () => rows);
  if (options.signal?.aborted) throw cancelled();
  let chunk = (request.bom ? BOM : '') + csvRow(report.columns.map((c) => c.name));
  for (const line of csvLines(report, ctx)) {
    chunk += line;
    rows += 1;
    if (chunk.length >= CHUNK_CHARS) {
      await sink.write(chunk);
      chunk = '';
    }
    if ((rows & 255) === 0) await pacer.tick();
  }
  await sink.write(chunk);
  if (options.signal?.aborted) throw cancelled();
  pacer.report();
  return rows;
}

// ---------- .xlsx ----------

const NUMBER_FORMATS: Partial<Record<CellKind, string>> = {
  fraction: '0.00%',
  money: '#,##0.00',
  integer: '0',
  date: 'yyyy-mm-dd',
  datetime: 'yyyy-mm-dd hh:mm:ss',
};

/** A CSV value as a typed workbook cell: dates become dates; text stays text (never a formula). */
function typedCell(value: CsvValue, kind: CellKind): ExcelJS.CellValue {
  if (value === null) return null;
  if ((kind === 'date' || kind === 'datetime') && typeof value === 'string') {
    const ms = Date.parse(kind === 'date' ? `${value}T00:00:00Z` : value);
    return Number.isFinite(ms) ? new Date(ms) : value;
  }
  return value;
}

function columnLetter(index: number): string {
  let n = index;
  let letters = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    letters = String.fromCharCode(65 + rem) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

function addSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  report: ReportDefinition,
  part: number,
) {
  const sheet = workbook.addWorksheet(part === 1 ? report.name : `${report.name} (${part})`, {
    views: [{ state: 'frozen', ySplit: 1 }],
  });
  sheet.columns = report.columns.map((c) => ({
    header: c.name,
    key: c.name,
    width: Math.max(10, Math.min(40, c.name.length + 2)),
    style: NUMBER_FORMATS[c.kind] ? { numFmt: NUMBER_FORMATS[c.kind] } : {},
  }));
  sheet.autoFilter = { from: 'A1', to: `${columnLetter(report.columns.length)}1` };
  sheet.getRow(1).font = { bold: true };
  return sheet;
}

/** Writes an .xlsx workbook, one sheet per report, into `out` (which the writer ends); returns data rows. */
export async function writeXlsx(
  db: Db,
  request: ExportRequest,
  out: Writable,
  options: ExportOptions,
): Promise<number> {
  const reports = reportsOf(db, request);
  if (options.signal?.aborted) throw cancelled();
  // Loaded with the first workbook, not at start: it costs about 0.3 s of every launch otherwise.
  const { default: Excel } = await import('exceljs');
  const workbook = new Excel.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
  });
  workbook.creator = 'Splitbook';
  let rows = 0;
  for (const report of reports) {
    const ctx = contextFor(db, request, options.now);
    const pacer = new Pacer(ctx, options, () => rows);
    let part = 1;
    let sheet = addSheet(workbook, report, part);
    let inSheet = 0;
    for (const row of report.rows(ctx)) {
      if (inSheet === MAX_SHEET_ROWS) {
        sheet.commit();
        part += 1;
        sheet = addSheet(workbook, report, part);
        inSheet = 0;
      }
      sheet
        .addRow(row.map((value, i) => typedCell(value, report.columns[i]?.kind ?? 'text')))
        .commit();
      inSheet += 1;
      rows += 1;
      if ((rows & 255) === 0) await pacer.tick();
    }
    sheet.commit();
    pacer.report();
  }
  await workbook.commit();
  return rows;
}

/** Writes the request's format into `out`. CSV leaves `out` open; the workbook writer ends it. */
export function writeExport(
  db: Db,
  request: ExportRequest,
  out: Writable,
  options: ExportOptions,
): Promise<number> {
  return request.format === 'xlsx'
    ? writeXlsx(db, request, out, options)
    : writeCsv(db, request, out, options);
}
