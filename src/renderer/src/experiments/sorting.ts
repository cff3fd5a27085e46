// The test list's sort from its headers: a click on the sorted column turns its direction, a click on
// another sorts by it in its natural direction; and what the header tells assistive technology.
import type { TestListInput, TestSortKey } from '#shared/contract/index';
import type { Column } from './columns';

export type Sort = TestListInput['sort'];

/** Text columns sort A→Z first; dates and numbers newest or largest first. */
export function defaultDirection(key: TestSortKey): 'asc' | 'desc' {
  return key === 'title' || key === 'status' || key === 'goal' || key === 'decision'
    ? 'asc'
    : 'desc';
}

/** The sort after a click on the header of `key`. */
export function nextSort(current: Sort, key: TestSortKey): Sort {
  return current.key === key
    ? { key, dir: current.dir === 'asc' ? 'desc' : 'asc' }
    : { key, dir: defaultDirection(key) };
}

/** A header's aria-sort: none for a sortable column not sorted by, nothing for one that cannot sort. */
export function ariaSort(
  sort: Sort,
  column: Pick<Column, 'sort'>,
): 'ascending' | 'descending' | 'none' | undefined {
  if (!column.sort) return undefined;
  if (sort.key !== column.sort) return 'none';
  return sort.dir === 'asc' ? 'ascending' : 'descending';
}
