// The Backlog grid's cells (issue 45, item 6): what an inline edit of impact, effort, priority or tags
// sends, or why it is refused; whether it changes anything; and the score, days and filters as shown.
import { describe, expect, test } from 'vitest';
import type { BacklogRow } from '#shared/contract/index';
import {
  cellId,
  daysText,
  facetOptions,
  parseEdit,
  priorityChoices,
  rowKey,
  scoreText,
  tagIdsOf,
  textOf,
  unchanged,
  wholeNumber,
} from '../../src/renderer/src/programme/backlogCells';

const row: BacklogRow = {
  storeId: 'store-1',
  storeName: 'Acme',
  testId: 'test-1',
  title: 'Bigger buy button',
  status: 'draft',
  stage: 'idea',
  goal: 'conversion-rate',
  tags: ['Checkout', 'Mobile'],
  tagIds: ['t-checkout', 't-mobile'],
  surfaceArea: null,
  priority: 'high',
  impact: 8,
  effort: null,
  score: null,
  rank: 1,
  plannerDays: null,
  plannerText: 'No traffic yet',
  plannerTooLong: false,
  pendingFields: [],
  updatedAt: '2026-01-01T00:00:00Z',
};

describe('an inline edit read back', () => {
  test('impact and effort take a whole number, or empty to clear', () => {
    expect(parseEdit(row, 'impact', ' 12 ', [])).toEqual({ value: 12 });
    expect(parseEdit(row, 'effort', '-3', [])).toEqual({ value: -3 });
    expect(parseEdit(row, 'effort', '   ', [])).toEqual({ value: null });
    for (const text of ['1.5', '1e3', 'ten', '99999999999999999999'])
      expect(parseEdit(row, 'impact', text, [])).toEqual({
        refused: 'Impact is a whole number (or empty to clear it).',
      });
    expect(wholeNumber('007')).toBe(7);
  });

  test('a priority is kept as typed, trimmed; empty clears it', () => {
    expect(parseEdit(row, 'priority', '  urgent-ish ', [])).toEqual({ value: 'urgent-ish' });
    expect(parseEdit(row, 'priority', '', [])).toEqual({ value: null });
  });

  test("tags by name, in any case, from the store's tags or the row's own; unknown names refused", () => {
    const storeTags = [{ id: 't-promo', name: 'Promo' }];
    expect(parseEdit(row, 'tagIds', 'promo, CHECKOUT,, promo', storeTags)).toEqual({
      value: ['t-promo', 't-checkout'],
    });
    expect(parseEdit(row, 'tagIds', '', storeTags)).toEqual({ value: [] });
    expect(parseEdit(row, 'tagIds', 'Promo, Summer, Winter', storeTags)).toEqual({
      refused:
        "No tag named “Summer”, “Winter” in Acme: create it in the test's Edit tab, or pick a tag it has.",
    });
    expect(tagIdsOf('a, b', [{ id: '1', name: 'A' }])).toEqual({ ids: ['1'], unknown: ['b'] });
  });

  test('an edit that leaves the value as it is sends nothing', () => {
    expect(unchanged(row, 'impact', 8)).toBe(true);
    expect(unchanged(row, 'impact', 9)).toBe(false);
    expect(unchanged(row, 'effort', null)).toBe(true);
    expect(unchanged(row, 'tagIds', ['t-checkout', 't-mobile'])).toBe(true);
    expect(unchanged(row, 'tagIds', ['t-mobile', 't-checkout'])).toBe(false);
    expect(unchanged(row, 'tagIds', ['t-checkout'])).toBe(false);
  });

  test("the text an input starts with is the cell's", () => {
    expect(textOf(row, 'impact')).toBe('8');
    expect(textOf(row, 'effort')).toBe('');
    expect(textOf(row, 'priority')).toBe('high');
    expect(textOf(row, 'tagIds')).toBe('Checkout, Mobile');
  });
});

describe('the cells as shown', () => {
  test('a score: a dash without one, whole numbers as such, else two decimals', () => {
    expect(scoreText({ score: null })).toBe('—');
    expect(scoreText({ score: 4 })).toBe('4');
    expect(scoreText({ score: 1 / 3 })).toBe('0.33');
  });

  test("days: counted up to a quarter (at least 1), then the planner's rounder words", () => {
    expect(daysText({ plannerDays: null })).toBe('—');
    expect(daysText({ plannerDays: 0.2 })).toBe('1 days');
    expect(daysText({ plannerDays: 23.6 })).toBe('24 days');
    expect(daysText({ plannerDays: 99 })).toBe('99 days');
    expect(daysText({ plannerDays: 1500 }).startsWith('~')).toBe(true);
    expect(daysText({ plannerDays: 1500 })).not.toMatch(/about/);
  });

  test("priorities offered: the common words, then the rows' own, each once", () => {
    expect(priorityChoices([{ priority: 'P1' }, { priority: 'high' }, { priority: null }])).toEqual(
      ['critical', 'highest', 'high', 'medium', 'normal', 'low', 'lowest', 'P1'],
    );
  });

  test("the filters' choices carry their counts, goals by name", () => {
    const options = facetOptions({
      stores: [],
      tags: [{ key: 't1', label: 'Checkout', count: 1200 }],
      surfaceAreas: [{ key: 'pdp', label: 'pdp', count: 3 }],
      goals: [{ key: 'conversion-rate', label: 'conversion-rate', count: 2 }],
    });
    expect(options.tags).toEqual([{ value: 't1', label: 'Checkout (1,200)' }]);
    expect(options.surfaceAreas).toEqual([{ value: 'pdp', label: 'pdp (3)' }]);
    expect(options.goals).toEqual([{ value: 'conversion-rate', label: 'Conversion rate (2)' }]);
    expect(facetOptions(undefined)).toEqual({ tags: [], surfaceAreas: [], goals: [] });
  });

  test("a row's key and its cells' ids", () => {
    expect(rowKey(row)).toBe('store-1/test-1');
    expect(cellId(row, 'priority')).toBe('backlog-store-1-test-1-priority');
  });
});
