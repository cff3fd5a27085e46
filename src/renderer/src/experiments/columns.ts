// The test list's columns: which exist, and the one rule for which show (the user's choice, else what fits).
import type { TestSortKey } from '#shared/contract/index';

export type ColumnKey =
  | 'title'
  | 'store'
  | 'status'
  | 'stage'
  | 'goal'
  | 'device'
  | 'campaign'
  | 'tags'
  | 'owner'
  | 'start'
  | 'end'
  | 'updated'
  | 'decision'
  | 'pwin'
  | 'lift'
  | 'apiPwin'
  | 'apiLift'
  | 'alerts';

/** "one store" or "All stores": each keeps its own choice, as the Store column means little in one store. */
export type ScopeKind = 'one' | 'all';

export type Column = {
  key: ColumnKey;
  label: string;
  /** The header in two lines (the figure, then whose it is), where the label is wider than the column. */
  head?: readonly [string, string];
  sort: TestSortKey | null;
  numeric?: boolean;
  /** Width in px; `narrow` below NARROW_LIST px of list. The title takes what is left. */
  width: number;
  narrow?: number;
  /**
   * Which shown-by-default columns stay longest when the list is narrow (1 first). Columns the user
   * turned on or off are never dropped or added for width: those the list cannot fit make it scroll.
   */
  rank: number;
  /** The rank in a list narrower than NARROW_LIST, where the call and its lift matter most. */
  narrowRank?: number;
  /** Shown until the user says otherwise. */
  byDefault: (scope: ScopeKind, stores: number) => boolean;
  /**
   * Shown by default and never dropped for width (only the user's choice hides it): the store of a
   * list mixing several stores, since titles repeat across stores and a row means little without it.
   */
  kept?: (scope: ScopeKind, stores: number) => boolean;
};

const always = () => true;
const never = () => false;

/**
 * In the order the list shows them. Ranks (which default columns stay longest in a narrow list):
 * status, Splitbook's call, its lift of the goal, alerts, its chance to win, then the rest. The
 * smallest window (900 px, a list of about 360 px beside the detail pane) keeps title, decision and
 * lift; with the detail pane collapsed the list has the window's width.
 */
export const COLUMNS: readonly Column[] = [
  { key: 'title', label: 'Title', sort: 'title', width: 0, rank: 0, byDefault: always },
  {
    key: 'store',
    label: 'Store',
    sort: null,
    width: 96,
    narrow: 72,
    rank: 7,
    // Its width is earned only where rows of several stores are mixed; there it always shows.
    byDefault: (scope, stores) => scope === 'all' && stores > 1,
    kept: (scope, stores) => scope === 'all' && stores > 1,
  },
  {
    key: 'status',
    label: 'Status',
    sort: 'status',
    width: 96,
    narrow: 84,
    rank: 1,
    narrowRank: 3,
    byDefault: always,
  },
  { key: 'stage', label: 'Stage', sort: null, width: 80, rank: 10, byDefault: never },
  { key: 'goal', label: 'Goal', sort: 'goal', width: 140, rank: 8, byDefault: always },
  { key: 'device', label: 'Device', sort: null, width: 76, rank: 10, byDefault: never },
  { key: 'campaign', label: 'Campaign', sort: null, width: 120, rank: 10, byDefault: never },
  { key: 'tags', label: 'Tags', sort: null, width: 120, rank: 10, byDefault: never },
  // A shared store's owner per test (the team layer); off until the user turns it on.
  { key: 'owner', label: 'Owner', sort: null, width: 96, rank: 10, byDefault: never },
  {
    key: 'start',
    label: 'Start',
    sort: 'startAt',
    numeric: true,
    width: 90,
    rank: 6,
    byDefault: always,
  },
  { key: 'end', label: 'End', sort: 'endAt', numeric: true, width: 90, rank: 9, byDefault: always },
  {
    key: 'updated',
    label: 'Updated',
    sort: 'updatedAt',
    numeric: true,
    width: 90,
    rank: 10,
    byDefault: never,
  },
  {
    key: 'decision',
    label: 'Decision',
    sort: 'decision',
    width: 116,
    narrow: 78,
    rank: 2,
    narrowRank: 1,
    byDefault: always,
  },
  {
    key: 'pwin',
    label: 'P(win) (goal)',
    head: ['P(win)', '(goal)'],
    sort: 'goalPWin',
    numeric: true,
    width: 60,
    rank: 5,
    byDefault: always,
  },
  {
    key: 'lift',
    label: 'Lift (goal)',
    head: ['Lift', '(goal)'],
    sort: 'goalLift',
    numeric: true,
    width: 64,
    narrow: 50,
    rank: 3,
    narrowRank: 2,
    byDefault: always,
  },
  {
    key: 'apiPwin',
    label: 'P(win) (API)',
    head: ['P(win)', '(API)'],
    sort: 'probabilityToWin',
    numeric: true,
    width: 60,
    rank: 10,
    byDefault: never,
  },
  {
    key: 'apiLift',
    label: 'Lift (API, metric not stated)',
    head: ['Lift (API)', 'metric not stated'],
    sort: 'lift',
    numeric: true,
    width: 96,
    rank: 10,
    byDefault: never,
  },
  { key: 'alerts', label: 'Alerts', sort: null, width: 74, narrow: 34, rank: 4, byDefault: always },
];

/** The title never gets less than this; columns shown by default leave the list when it would. */
export const TITLE_MIN = 160;
/**
 * In a list narrower than NARROW_LIST (the smallest window) the title keeps this share of the list
 * (and at least TITLE_MIN_NARROW px): secondary columns leave first, so a title reads as words, not
 * as its first nine letters.
 */
export const TITLE_SHARE_NARROW = 0.42;
export const TITLE_MIN_NARROW = 120;
/** The row's gap between cells and its side padding, as TestTable's CSS sets them. */
export const GAP = 10;
export const PADDING = 20;
/**
 * Below this list width, status, decision, lift and alerts take their compact widths (decision: its
 * short words; lift: no word; alerts: icon and count).
 */
export const NARROW_LIST = 480;

export type Choices = Partial<Record<ColumnKey, boolean>>;

export type Layout = {
  /** The columns to draw, in order, each with the width it gets (the title's is its minimum). */
  shown: { column: Column; width: number }[];
  /** Shown by default but dropped for want of room. */
  crowdedOut: Set<ColumnKey>;
  /** The width the shown columns need: more than the list has means it scrolls sideways. */
  minWidth: number;
  /** The least the title gets. */
  titleMin: number;
};

/**
 * The one rule for which columns show. Title always; a column the user turned on or off is shown or
 * hidden as chosen, whatever the width; so is a kept one (the store in a list of several stores) until
 * the user turns it off; the rest follow their default, and those shown by default leave, least needed
 * first, when they would squeeze the title below its minimum. `listWidth` 0 (not
 * measured yet, or no list on screen) drops none of them.
 */
export function layoutColumns(
  listWidth: number,
  scope: ScopeKind,
  stores: number,
  choices: Choices,
): Layout {
  const narrow = listWidth > 0 && listWidth < NARROW_LIST;
  const widthOf = (column: Column) => (narrow ? (column.narrow ?? column.width) : column.width);
  const titleMin = narrow
    ? Math.max(TITLE_MIN_NARROW, Math.round(listWidth * TITLE_SHARE_NARROW))
    : TITLE_MIN;
  const chosen = new Set<ColumnKey>(['title']);
  const candidates: Column[] = [];
  for (const column of COLUMNS) {
    if (column.key === 'title') continue;
    const choice = choices[column.key];
    if (choice === true || (choice === undefined && column.kept?.(scope, stores) === true))
      chosen.add(column.key);
    else if (choice === undefined && column.byDefault(scope, stores)) candidates.push(column);
  }
  let used =
    PADDING +
    titleMin +
    COLUMNS.filter((c) => c.key !== 'title' && chosen.has(c.key)).reduce(
      (sum, c) => sum + widthOf(c) + GAP,
      0,
    );
  const crowdedOut = new Set<ColumnKey>();
  let full = false;
  const rankOf = (column: Column) => (narrow ? (column.narrowRank ?? column.rank) : column.rank);
  for (const column of [...candidates].sort((a, b) => rankOf(a) - rankOf(b))) {
    const needs = widthOf(column) + GAP;
    if (!full && (listWidth === 0 || used + needs <= listWidth)) {
      chosen.add(column.key);
      used += needs;
    } else {
      // Strictly by rank: once one does not fit, the less needed ones stay out too.
      full = true;
      crowdedOut.add(column.key);
    }
  }
  const shown = COLUMNS.filter((c) => chosen.has(c.key)).map((column) => ({
    column,
    width: column.key === 'title' ? titleMin : widthOf(column),
  }));
  return { shown, crowdedOut, minWidth: used, titleMin };
}

/** Room the title reads well in, beside every default column: what a list with nothing open may grow to. */
export const TITLE_COMFORT = 280;

/**
 * The width at which the list shows every column it would show by default (and those the user turned
 * on) beside a title of TITLE_COMFORT px: what the empty detail pane gives way to (lib/paneLayout.ts).
 */
export function wantedListWidth(scope: ScopeKind, stores: number, choices: Choices): number {
  const all = layoutColumns(0, scope, stores, choices);
  return all.minWidth - all.titleMin + TITLE_COMFORT;
}
