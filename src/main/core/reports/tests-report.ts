// The `tests` report: one row per cached test of a store (or of all stores), in the list's order.
import { TestListInput, type Services, type TestRow } from '../../../shared/contract';
import type { CsvValue } from './csv';

export const TEST_COLUMNS: readonly (readonly [string, (row: TestRow) => CsvValue])[] = [
  ['store_id', (r) => r.storeId],
  ['store', (r) => r.storeName],
  ['test_id', (r) => r.id],
  ['title', (r) => r.title],
  ['status', (r) => r.status],
  ['stage', (r) => r.stage],
  ['goal', (r) => r.goal],
  ['device', (r) => r.device],
  ['start_at', (r) => r.startAt],
  ['end_at', (r) => r.endAt],
  ['updated_at', (r) => r.updatedAt],
  ['campaign', (r) => r.campaignName],
  ['tags', (r) => r.tags.join('; ')],
  ['probability_to_win', (r) => r.probabilityToWin],
  ['lift', (r) => r.lift],
  ['visitors', (r) => r.visitors],
];

/** The header, then one row per test, read page by page so memory stays flat. */
export async function* testsReport(
  tests: Services['tests'],
  storeId: string | null,
): AsyncGenerator<CsvValue[]> {
  yield TEST_COLUMNS.map(([header]) => header);
  let cursor: string | null = null;
  do {
    const page = await tests.list(TestListInput.parse({ storeId, cursor, limit: 500 }));
    for (const row of page.rows) yield TEST_COLUMNS.map(([, value]) => value(row));
    cursor = page.nextCursor;
  } while (cursor);
}
