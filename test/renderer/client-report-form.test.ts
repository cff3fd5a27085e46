// The client report dialog's form (issue 45, item 6: logic out of ClientReportDialog.svelte): the first
// cover from where it was opened, the scope sent for each cover, the words for it, and the problem
// when the clipboard refuses the summary.
import { describe, expect, test } from 'vitest';
import {
  firstCover,
  notCopied,
  reportScope,
  wordsOfCover,
} from '../../src/renderer/src/reports/clientReportForm';

const fromTest = { storeId: 's1', storeName: 'Northwind', test: { id: 't1', title: 'Hero' } };
const fromStore = { storeId: 's1', storeName: 'Northwind', test: null };
const fromAll = { storeId: null, storeName: null, test: null };

describe('client report form', () => {
  test('the first cover is the narrowest the place allows', () => {
    expect(firstCover(fromTest)).toBe('test');
    expect(firstCover(fromStore)).toBe('store');
    expect(firstCover(fromAll)).toBe('all');
  });

  test("a test's scope has no period; a store's or all stores' carry it, empty days as null", () => {
    expect(reportScope('test', fromTest, '2026-01-01', '2026-01-31')).toEqual({
      storeId: 's1',
      testId: 't1',
      since: null,
      until: null,
    });
    expect(reportScope('store', fromTest, '2026-01-01', '')).toEqual({
      storeId: 's1',
      testId: null,
      since: '2026-01-01',
      until: null,
    });
    expect(reportScope('all', fromStore, '', '2026-01-31')).toEqual({
      storeId: null,
      testId: null,
      since: null,
      until: '2026-01-31',
    });
  });

  test('the words for what it covers', () => {
    expect(wordsOfCover('test', fromTest)).toBe('one test');
    expect(wordsOfCover('store', fromStore)).toBe('Northwind');
    expect(wordsOfCover('store', { ...fromStore, storeName: null })).toBe('this store');
    expect(wordsOfCover('all', fromAll)).toBe('every store');
  });

  test('a refused clipboard says so and keeps the rest of the problem', () => {
    const problem = notCopied(
      { type: 'about:blank', title: 'Something', status: 500, detail: 'x' },
      new Error('denied'),
    );
    expect(problem.type).toBe('about:blank');
    expect(problem.title).toBe('Not copied');
    expect(problem.detail).toBe(
      'The clipboard refused the summary (denied). Select the text below and copy it yourself.',
    );
  });
});
