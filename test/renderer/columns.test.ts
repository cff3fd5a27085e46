// The test list's columns and the list pane's width (issue 44, item 6): in a list of several stores the
// Store column always shows, and while no test is open the empty detail pane gives way before any
// column is dropped.
import { describe, expect, test } from 'vitest';
import { layoutColumns, wantedListWidth } from '../../src/renderer/src/experiments/columns';
import {
  listDragMax,
  listPaneWidth,
  MIN_DETAIL,
  MIN_EMPTY_DETAIL,
} from '../../src/renderer/src/lib/paneLayout';

const shown = (width: number, scope: 'one' | 'all', stores: number, choices = {}) =>
  layoutColumns(width, scope, stores, choices).shown.map((s) => s.column.key);

describe('the Store column', () => {
  test('always shows in a list of several stores, at every width, beside the title', () => {
    for (const width of [300, 360, 480, 720, 940, 1240])
      expect(shown(width, 'all', 3), `at ${width} px`).toContain('store');
  });

  test('leaves other columns first when room is short, and never squeezes the title', () => {
    const layout = layoutColumns(720, 'all', 3, {});
    expect(layout.crowdedOut.has('store')).toBe(false);
    const title = layout.shown.find((s) => s.column.key === 'title');
    expect(title?.width).toBeGreaterThanOrEqual(160);
  });

  test('is off in one store and in All stores of a single store, and the user may turn it off', () => {
    expect(shown(1240, 'one', 3)).not.toContain('store');
    expect(shown(1240, 'all', 1)).not.toContain('store');
    expect(shown(1240, 'all', 3, { store: false })).not.toContain('store');
  });

  test('Goal is wide enough for "Revenue per visitor" (the widest goal name)', () => {
    const goal = layoutColumns(2000, 'all', 3, {}).shown.find((s) => s.column.key === 'goal');
    expect(goal?.width).toBeGreaterThanOrEqual(136);
  });
});

describe('the list pane beside an empty detail pane', () => {
  const base = { windowWidth: 1440, sidebar: 220, chosen: null, byDefault: 720 };
  const wanted = wantedListWidth('all', 3, {});

  test('at 1440×900 with no test open, the list widens until every default column fits', () => {
    const width = listPaneWidth({ ...base, emptyDetail: true, wanted });
    expect(width).toBeGreaterThan(720);
    expect(1440 - 220 - width).toBeGreaterThanOrEqual(MIN_EMPTY_DETAIL);
    // The list's rows are its width less the scroll bar's gutter.
    const layout = layoutColumns(width - 16, 'all', 3, {});
    // Only what cannot fit even with the empty pane at its least is dropped: End, at 1440.
    expect([...layout.crowdedOut]).toEqual(['end']);
    expect(layoutColumns(720 - 16, 'all', 3, {}).crowdedOut.size).toBeGreaterThan(2);
    expect(layout.shown.map((s) => s.column.key)).toEqual(
      expect.arrayContaining(['store', 'status', 'decision', 'lift', 'goal']),
    );
  });

  test('gives way no further than its columns want', () => {
    const roomy = { ...base, windowWidth: 2560, byDefault: 1240 };
    expect(listPaneWidth({ ...roomy, emptyDetail: true, wanted })).toBe(Math.max(1240, wanted));
  });

  test('an open test gets its detail pane back at its default, and MIN_DETAIL at least', () => {
    expect(listPaneWidth({ ...base, emptyDetail: false, wanted })).toBe(720);
    expect(listPaneWidth({ ...base, byDefault: 1200, emptyDetail: false, wanted })).toBe(
      1440 - 220 - MIN_DETAIL,
    );
  });

  test('a width the user dragged is kept, open test or not', () => {
    for (const emptyDetail of [true, false])
      expect(listPaneWidth({ ...base, chosen: 640, emptyDetail, wanted })).toBe(640);
  });

  test('the splitter drags as far as the empty pane allows, and the open pane stops it sooner', () => {
    expect(listDragMax(1440, 220, true)).toBe(1440 - 220 - MIN_EMPTY_DETAIL);
    expect(listDragMax(1440, 220, false)).toBe(1440 - 220 - MIN_DETAIL);
  });
});
