// How wide the list pane is drawn: the width the user set or the window's default, within what leaves
// the detail pane its room; and, while the detail pane is empty, more, since an empty pane gives way first.

/** The least an open test's detail pane keeps. */
export const MIN_DETAIL = 340;
/** The least the empty detail pane ("Select a test…") keeps while it gives way to the list's columns. */
export const MIN_EMPTY_DETAIL = 200;
/** The list never gets less than this. */
export const MIN_LIST = 360;

export type PaneLayoutInput = {
  windowWidth: number;
  sidebar: number;
  /** The width the user set by dragging the splitter, or null (following the window). */
  chosen: number | null;
  /** The width that follows the window when the user set none. */
  byDefault: number;
  /** Nothing is open in the detail pane: its placeholder is all it shows. */
  emptyDetail: boolean;
  /** The width at which the list shows every default column (columns.ts wantedListWidth). */
  wanted: number;
};

/** The list's widest: what leaves an open test its MIN_DETAIL (and the list MIN_LIST at least). */
export function listMaxWidth(windowWidth: number, sidebar: number): number {
  return Math.max(MIN_LIST, windowWidth - sidebar - MIN_DETAIL);
}

/** How far the splitter drags the list: further while the detail pane is empty. */
export function listDragMax(windowWidth: number, sidebar: number, emptyDetail: boolean): number {
  const max = listMaxWidth(windowWidth, sidebar);
  return emptyDetail ? Math.max(max, windowWidth - sidebar - MIN_EMPTY_DETAIL) : max;
}

/**
 * The list pane's width. A width the user chose is kept (as much of it as fits); otherwise the
 * window's default, and while nothing is open the empty detail pane shrinks towards MIN_EMPTY_DETAIL
 * until the list has the width its default columns want, so no column is dropped for an empty pane.
 */
export function listPaneWidth(input: PaneLayoutInput): number {
  const max = listMaxWidth(input.windowWidth, input.sidebar);
  if (input.chosen !== null) return Math.min(input.chosen, max);
  const base = Math.min(input.byDefault, max);
  if (!input.emptyDetail) return base;
  const roomy = listDragMax(input.windowWidth, input.sidebar, true);
  return Math.max(base, Math.min(input.wanted, roomy));
}
