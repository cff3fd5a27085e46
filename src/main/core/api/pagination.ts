// The bounds of a walk of the test listing: how far past the announced pages it may read, and which
// pagination cannot be true whatever the server says.
import type { Pagination } from '#shared/api/index';

/** Beyond the page count the first page announced, a listing may grow this much while we walk it. */
const WALK_GROWTH_FACTOR = 2;
const WALK_GROWTH_PAGES = 5;
/** Far more tests than any store runs: a walk never reads past this many, whatever the server claims. */
export const MAX_LISTED_TESTS = 200_000;

/** The last page a walk may ask for, set from the first page it read. */
export function walkCeiling(
  page: number,
  totalPages: number,
  totalCount: number,
  received: number,
): number {
  const remainingByPages = Math.max(totalPages - page, 1);
  const remainingByCount = Math.max(
    Math.ceil(Math.min(totalCount, MAX_LISTED_TESTS) / received) - page,
    1,
  );
  const remaining = Math.min(remainingByPages, remainingByCount);
  return page + remaining * WALK_GROWTH_FACTOR + WALK_GROWTH_PAGES;
}

/**
 * Why a page's pagination cannot be true, or null when it can: negative counts, records on a
 * listing that says it has none, or a page count that does not follow from the count and page size.
 */
export function impossiblePagination(p: Pagination, records: number): string | null {
  if (p.totalCount < 0 || p.totalPages < 0) {
    return `it reports ${p.totalCount} tests on ${p.totalPages} pages`;
  }
  if (p.perPage <= 0) return `it reports a page size of ${p.perPage}`;
  if (p.page <= 0) return `it reports page ${p.page}`;
  if (records > 0 && (p.totalCount === 0 || p.totalPages === 0)) {
    return `the page holds ${records} records but the listing says it has ${p.totalCount} tests on ${p.totalPages} pages`;
  }
  const expected = Math.ceil(p.totalCount / p.perPage);
  // An empty listing may say 0 pages or 1 (an empty first page).
  const consistent = p.totalPages === expected || (p.totalCount === 0 && p.totalPages === 1);
  if (!consistent) {
    return `${p.totalCount} tests at ${p.perPage} per page make ${expected} pages, not ${p.totalPages}`;
  }
  return null;
}
