// Runs one export: checks the scope, then streams a report's rows as CSV, or every chosen report as an
// .xlsx workbook (xlsx.ts, streamed), with throttled progress and cancellation.
import type { Writable } from 'node:stream';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ExportRequest } from '#shared/contract/index';
import { problem } from '#shared/problem';
import type { Db } from '../db/types';
import { BOM, csvRow } from './csv';
import { REPORTS, reportByName } from './registry';
import { checkScope } from './source';
import { columnsOf, NUMBER_KINDS, type ReportContext, type ReportDefinition } from './types';
import { sinkFor, Utf8Chunks } from './write-file';
import { XlsxWriter } from './xlsx';

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

/** A report's data rows as CSV records (a report with csvBlocks is written from those instead). */
function* csvLines(report: ReportDefinition, ctx: ReportContext): Generator<string> {
  for (const row of report.rows(ctx)) yield csvRow(row);
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
  const chunks = new Utf8Chunks();
  const flush = async () => {
    for (const part of chunks.take()) await sink.write(part);
  };
  let rows = 0;
  const pacer = new Pacer(ctx, options, () => rows);
  if (options.signal?.aborted) throw cancelled();
  chunks.add((request.bom ? BOM : '') + csvRow(columnsOf(report, ctx).map((c) => c.name)));
  if (report.csvBlocks) {
    for await (const block of report.csvBlocks(ctx)) {
      if (chunks.add(block.text)) await flush();
      rows += block.rows;
      await pacer.tick();
    }
  } else {
    for (const line of csvLines(report, ctx)) {
      if (chunks.add(line)) await flush();
      rows += 1;
      if ((rows & 255) === 0) await pacer.tick();
    }
  }
  await flush();
  if (options.signal?.aborted) throw cancelled();
  pacer.report();
  return rows;
}

// ---------- .xlsx ----------

/** Writes an .xlsx workbook, one sheet per report, into `out` (which the writer ends); returns data rows. */
export async function writeXlsx(
  db: Db,
  request: ExportRequest,
  out: Writable,
  options: ExportOptions,
): Promise<number> {
  const reports = reportsOf(db, request);
  if (options.signal?.aborted) throw cancelled();
  const workbook = new XlsxWriter(out, options.now);
  let rows = 0;
  for (const report of reports) {
    const ctx = contextFor(db, request, options.now);
    const pacer = new Pacer(ctx, options, () => rows);
    const columns = columnsOf(report, ctx);
    const number = columns.map((c) => NUMBER_KINDS.has(c.kind));
    let part = 1;
    let sheet = await workbook.sheet(report.name, columns, number);
    let inSheet = 0;
    const next = async () => {
      if (inSheet < MAX_SHEET_ROWS) return;
      await sheet.end();
      part += 1;
      sheet = await workbook.sheet(`${report.name} (${part})`, columns, number);
      inSheet = 0;
    };
    if (report.textRows) {
      for await (const block of report.textRows(ctx)) {
        for (const row of block) {
          await next();
          if (sheet.textRow(row)) await sheet.flush();
          inSheet += 1;
          rows += 1;
          if ((rows & 255) === 0) await pacer.tick();
        }
      }
    } else {
      for (const row of report.rows(ctx)) {
        await next();
        if (sheet.row(row)) await sheet.flush();
        inSheet += 1;
        rows += 1;
        if ((rows & 255) === 0) await pacer.tick();
      }
    }
    await sheet.end();
    pacer.report();
  }
  if (options.signal?.aborted) throw cancelled();
  await workbook.finish();
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
