// The lists' keyboard, once (issue 45, item 6): which key moves where, opens, edits or clears, in a
// plain list (Decisions), one with pages (Tests) and an editable grid of cells (Backlog).
import { describe, expect, test } from 'vitest';
import { clampRow, gridAction, handleGridKey } from '../../src/renderer/src/lib/gridKeys';

describe('gridAction in a plain list', () => {
  const at = { row: 3, rows: 10 };

  test('j/k and the arrows move a row, Home and End to either end', () => {
    for (const key of ['ArrowDown', 'j'])
      expect(gridAction(key, at)).toEqual({ kind: 'move', row: 4, column: 0 });
    for (const key of ['ArrowUp', 'k'])
      expect(gridAction(key, at)).toEqual({ kind: 'move', row: 2, column: 0 });
    expect(gridAction('Home', at)).toEqual({ kind: 'move', row: 0, column: 0 });
    expect(gridAction('End', at)).toEqual({ kind: 'move', row: 9, column: 0 });
  });

  test('with nothing selected, up and Enter go to the first row, down to the first too', () => {
    const none = { row: -1, rows: 10 };
    expect(gridAction('k', none)).toEqual({ kind: 'move', row: 0, column: 0 });
    expect(gridAction('j', none)).toEqual({ kind: 'move', row: 0, column: 0 });
    expect(gridAction('Enter', none)).toEqual({ kind: 'move', row: 0, column: 0 });
  });

  test("Enter acts on the selected row, Esc clears; F2, pages and ←/→ are not a plain list's", () => {
    expect(gridAction('Enter', at)).toEqual({ kind: 'activate', key: 'Enter' });
    expect(gridAction('Escape', at)).toEqual({ kind: 'clear' });
    for (const key of ['F2', 'PageDown', 'PageUp', 'ArrowLeft', 'ArrowRight', 'h', 'l', 'x', ' '])
      expect(gridAction(key, at)).toBeNull();
  });

  test('moves are not clamped (the view clamps, as some lists load rows on demand)', () => {
    expect(gridAction('j', { row: 9, rows: 10 })).toEqual({ kind: 'move', row: 10, column: 0 });
    expect(gridAction('End', { row: -1, rows: 0 })).toEqual({ kind: 'move', row: -1, column: 0 });
    expect(clampRow(10, 10)).toBe(9);
    expect(clampRow(-4, 10)).toBe(0);
    expect(clampRow(5, 10)).toBe(5);
  });
});

describe('gridAction with pages', () => {
  test('PageDown and PageUp move by the page', () => {
    const at = { row: 20, rows: 100, page: 7 };
    expect(gridAction('PageDown', at)).toEqual({ kind: 'move', row: 27, column: 0 });
    expect(gridAction('PageUp', at)).toEqual({ kind: 'move', row: 13, column: 0 });
  });
});

describe('gridAction in an editable grid of cells', () => {
  const at = { row: 2, rows: 5, column: 1, columns: 5, editable: true };

  test('←/→ and h/l move a column within the row, kept inside the columns', () => {
    for (const key of ['ArrowRight', 'l'])
      expect(gridAction(key, at)).toEqual({ kind: 'move', row: 2, column: 2 });
    for (const key of ['ArrowLeft', 'h'])
      expect(gridAction(key, at)).toEqual({ kind: 'move', row: 2, column: 0 });
    expect(gridAction('l', { ...at, column: 4 })).toEqual({ kind: 'move', row: 2, column: 4 });
    expect(gridAction('h', { ...at, column: 0 })).toEqual({ kind: 'move', row: 2, column: 0 });
  });

  test('with nothing selected a column move starts on the first row', () => {
    expect(gridAction('l', { ...at, row: -1 })).toEqual({ kind: 'move', row: 0, column: 2 });
  });

  test('up and down keep the column', () => {
    expect(gridAction('j', at)).toEqual({ kind: 'move', row: 3, column: 1 });
  });

  test('F2 edits like Enter; with nothing selected both go to the first row', () => {
    expect(gridAction('F2', at)).toEqual({ kind: 'activate', key: 'F2' });
    expect(gridAction('Enter', at)).toEqual({ kind: 'activate', key: 'Enter' });
    expect(gridAction('F2', { ...at, row: -1 })).toEqual({ kind: 'move', row: 0, column: 1 });
  });
});

describe('handleGridKey', () => {
  const pressed = (key: string) => {
    const event = { key, prevented: false, preventDefault: () => (event.prevented = true) };
    return event;
  };
  const record = () => {
    const calls: string[] = [];
    return {
      calls,
      on: {
        move: (row: number, column: number) => calls.push(`move ${row} ${column}`),
        activate: (key: string) => calls.push(`activate ${key}`),
        clear: () => calls.push('clear'),
      },
    };
  };

  test("a list's key goes to its handler and its default is prevented", () => {
    for (const [key, call] of [
      ['j', 'move 4 0'],
      ['Enter', 'activate Enter'],
      ['Escape', 'clear'],
    ] as const) {
      const { calls, on } = record();
      const event = pressed(key);
      expect(handleGridKey(event, { row: 3, rows: 10 }, on)).toBe(true);
      expect(calls).toEqual([call]);
      expect(event.prevented).toBe(true);
    }
  });

  test("a key not the list's is left alone: no handler, the default kept", () => {
    const { calls, on } = record();
    const event = pressed('x');
    expect(handleGridKey(event, { row: 3, rows: 10 }, on)).toBe(false);
    expect(calls).toEqual([]);
    expect(event.prevented).toBe(false);
  });

  test('a grid of cells moves a column and edits with F2', () => {
    const { calls, on } = record();
    const at = { row: 2, rows: 5, column: 1, columns: 5, editable: true };
    handleGridKey(pressed('l'), at, on);
    handleGridKey(pressed('F2'), at, on);
    expect(calls).toEqual(['move 2 2', 'activate F2']);
  });

  test('a list without a handler for an answer still takes the key (an empty list and Esc)', () => {
    const event = pressed('Enter');
    expect(handleGridKey(event, { row: -1, rows: 0 }, {})).toBe(true);
    expect(event.prevented).toBe(true);
  });
});
