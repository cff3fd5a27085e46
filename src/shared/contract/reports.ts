// `reports.*`: the CSV and .xlsx reports a consultant hands to a client: list them, export one, cancel.
import { z } from 'zod';
import { Empty, method } from './common';
import { TestFilter } from './tests';

export const REPORT_NAMES = [
  'tests',
  'metrics',
  'daily',
  'campaigns',
  'audiences',
  'portfolio',
  'backlog',
  'learnings',
] as const;
export const ReportName = z.enum(REPORT_NAMES);
export type ReportName = z.infer<typeof ReportName>;

export const ReportColumnInfo = z.object({
  name: z.string(),
  /** What a cell holds and in which unit, as the README states it. */
  unit: z.string(),
  /** Where the figure comes from: the API as sent, or Splitbook's own recomputation. */
  source: z.string(),
});

export const ReportInfo = z.object({
  name: ReportName,
  description: z.string(),
  /** Whether the report makes sense for one test (the detail pane offers only these). */
  perTest: z.boolean(),
  columns: z.array(ReportColumnInfo),
});
export type ReportInfo = z.infer<typeof ReportInfo>;

export const ExportId = z.string().min(8).max(64);
export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export const ExportFormat = z.enum(EXPORT_FORMATS);
export type ExportFormat = z.infer<typeof ExportFormat>;

export const ExportInput = z.object({
  /** Chosen by the caller, so it can cancel before the export answers. */
  exportId: ExportId,
  /** One report, or 'all' (the .xlsx workbook with every report as a sheet). */
  report: z.union([ReportName, z.literal('all')]),
  format: ExportFormat.default('csv'),
  /** UTF-8 byte-order mark at the start of a CSV (Excel on Windows needs it). */
  bom: z.boolean().default(true),
  /** The tests in scope: the test list's filter (storeId null = all stores). */
  filter: TestFilter.default(TestFilter.parse({})),
  /** One test of filter.storeId (the detail pane), or null for the whole filter. */
  testId: z.string().max(64).nullable().default(null),
});
export type ExportInput = z.infer<typeof ExportInput>;
/** What to export, without the window's cancel id (the CLI has none): the one shape both use. */
export type ExportRequest = Omit<ExportInput, 'exportId'>;

export const ExportResult = z.object({
  /** False when the user cancelled the save dialog or the export. */
  saved: z.boolean(),
  fileName: z.string(),
  /** Where the file went, as the app tells the user (a path, or the browser's downloads). */
  location: z.string().nullable(),
  /** The browser host's one-time download address (behind its token); null elsewhere. */
  downloadUrl: z.string().nullable(),
  /** Data rows written (header rows not counted; all sheets together for a workbook). */
  rows: z.int(),
});
export type ExportResult = z.infer<typeof ExportResult>;

export const ExportProgress = z.object({
  exportId: ExportId,
  rows: z.int(),
  /** Tests (or list records) read so far, of total when known. */
  done: z.int(),
  total: z.int().nullable(),
});
export type ExportProgress = z.infer<typeof ExportProgress>;

export const reports = {
  list: method(Empty, z.array(ReportInfo)),
  export: method(ExportInput, ExportResult),
  cancel: method(z.object({ exportId: ExportId }), z.object({ cancelled: z.boolean() })),
};
