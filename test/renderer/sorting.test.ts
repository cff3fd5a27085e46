// The test list's sort from its headers (issue 45, item 6): a second click turns the direction, another
// column starts in its natural one, and the headers' aria-sort says which is sorted and how.
import { describe, expect, test } from 'vitest';
import { ariaSort, defaultDirection, nextSort } from '../../src/renderer/src/experiments/sorting';

describe('the sort from a header', () => {
  test('text columns start A→Z, dates and figures largest or newest first', () => {
    for (const key of ['title', 'status', 'goal', 'decision'] as const)
      expect(defaultDirection(key)).toBe('asc');
    for (const key of ['updatedAt', 'startAt', 'endAt', 'goalPWin', 'goalLift'] as const)
      expect(defaultDirection(key)).toBe('desc');
  });

  test('a click on the sorted column turns it; on another, that one in its own direction', () => {
    expect(nextSort({ key: 'title', dir: 'asc' }, 'title')).toEqual({ key: 'title', dir: 'desc' });
    expect(nextSort({ key: 'title', dir: 'desc' }, 'title')).toEqual({ key: 'title', dir: 'asc' });
    expect(nextSort({ key: 'title', dir: 'desc' }, 'goalLift')).toEqual({
      key: 'goalLift',
      dir: 'desc',
    });
    expect(nextSort({ key: 'updatedAt', dir: 'asc' }, 'goal')).toEqual({ key: 'goal', dir: 'asc' });
  });

  test("aria-sort: the sorted column's direction, none on the others, nothing where it cannot sort", () => {
    const sort = { key: 'goalLift', dir: 'asc' } as const;
    expect(ariaSort(sort, { sort: 'goalLift' })).toBe('ascending');
    expect(ariaSort({ ...sort, dir: 'desc' }, { sort: 'goalLift' })).toBe('descending');
    expect(ariaSort(sort, { sort: 'title' })).toBe('none');
    expect(ariaSort(sort, { sort: null })).toBeUndefined();
  });
});
