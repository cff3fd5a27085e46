// The shape of a report: its columns (name, cell kind, unit, source) and a generator of rows over a scope.
import type { ReportName, TestFilter } from '#shared/contract/index';
import type { Db } from '../db/types';
import type { CsvValue } from './csv';

/** How a cell is typed in a workbook and which unit the README gives it. */
export type CellKind =
  'text' | 'integer' | 'number' | 'fraction' | 'money' | 'date' | 'datetime' | 'boolean';

/** Kinds whose cells are numbers (or booleans): written as their text, never quoted. */
export const NUMBER_KINDS: ReadonlySet<CellKind> = new Set([
  'integer',
  'number',
  'fraction',
  'money',
  'boolean',
]);

export interface Column {
  name: string;
  kind: CellKind;
  unit: string;
  /**
   * 'API' (as the server sent it, maybe rescaled), 'Splitbook' (recomputed here), 'cache', or
   * 'user' (the user's own data in splitbook-user.db, such as notes).
   */
  source: 'API' | 'Splitbook' | 'cache' | 'user';
}

export interface ReportScope {
  filter: TestFilter;
  /** One test of filter.storeId, or null for every test the filter keeps. */
  testId: string | null;
  /** The clock, for days_running and the statistics' missing-days rule. */
  now: number;
}

/** Moves as the generator reads tests or list records, so an export can report progress. */
export interface ReportProgress {
  done: number;
  total: number | null;
}

export interface ReportContext {
  db: Db;
  scope: ReportScope;
  progress: ReportProgress;
}

export interface ReportDefinition {
  name: ReportName;
  description: string;
  /** Whether the report reads per-test data (offered on a test's detail pane). */
  perTest: boolean;
  columns: readonly Column[];
  /**
   * The columns of this export when they depend on what it covers (the tests report's sign-off
   * columns, only when a shared store is exported); `columns` otherwise.
   */
  columnsFor?(ctx: ReportContext): readonly Column[];
  /** Data rows only (no header), in the columns' order, read in small batches so memory stays flat. */
  rows(ctx: ReportContext): Iterable<CsvValue[]>;
  /**
   * The same rows as text, for a report of millions of rows, handed over in blocks (so the reader
   * can work ahead asynchronously): each number as String(n) writes it (its text in the
   * cached record), each boolean as 'true' or 'false', text and dates as in `rows`. The .xlsx writer
   * uses it when present and never converts a number; a test checks it against `rows`.
   */
  textRows?(ctx: ReportContext): AsyncIterable<readonly (readonly (string | null)[])[]>;
  /**
   * The text rows as CSV records, each the very line the CSV writer makes of its textRows row, built
   * without the row and handed over a test's records at a time: for a report of millions of rows,
   * where the cells' arrays and a step of the writer a row were much of the time. Asynchronous, so it
   * can read ahead while a block is written. The CSV writer uses it when present; a test checks it
   * against textRows.
   */
  csvBlocks?(ctx: ReportContext): AsyncIterable<CsvBlock>;
}

/** Whole CSV records (each ending CRLF) and how many they are. */
export type CsvBlock = { text: string; rows: number };

/** A text column. */
export const text = (name: string, unit: string, source: Column['source'] = 'API'): Column => ({
  name,
  kind: 'text',
  unit,
  source,
});

/** The columns an export of `report` writes for this context. */
export const columnsOf = (report: ReportDefinition, ctx: ReportContext): readonly Column[] =>
  report.columnsFor?.(ctx) ?? report.columns;
