// Widths of the resizable panes: a width the user set (by dragging a splitter) is kept between runs;
// one the user never set follows the window, so a larger screen gets a wider list. And whether the
// detail pane is collapsed.
const STORAGE_KEY = 'splitbook.panes.v2';
/**
 * Before v2 the first launch's defaults were saved as if the user had chosen them, so the list kept the
 * width of the first window it opened in: those saved widths cannot be told from chosen ones and are
 * dropped once.
 */
const OLD_STORAGE_KEY = 'splitbook.panes';

export const SIDEBAR_DEFAULT = 220;
/** Below this window width the filters fold into one row and the detail pane may be collapsed. */
export const COMPACT_WINDOW = 1100;

/**
 * The list's width when the user has not set one grows with the window (half of it, and 40% of every
 * pixel past 1440, between 560 and 1240 px), so a large screen (1920 px) shows the Decision, Store,
 * Goal, Start, End and Alerts columns beside a readable title while the detail pane keeps about as
 * much room as at 1440 px.
 */
export function defaultListWidth(windowWidth: number): number {
  return Math.round(
    Math.min(1240, Math.max(560, windowWidth * 0.5 + Math.max(0, windowWidth - 1440) * 0.4)),
  );
}

type Saved = { sidebar: number | null; list: number | null; detailCollapsed: boolean };

const width = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;

function stored(): Saved {
  try {
    localStorage.removeItem(OLD_STORAGE_KEY);
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    if (typeof parsed === 'object' && parsed !== null) {
      const saved = parsed as Record<string, unknown>;
      return {
        sidebar: width(saved.sidebar),
        list: width(saved.list),
        detailCollapsed: saved.detailCollapsed === true,
      };
    }
  } catch {
    // Unreadable settings fall back to the defaults.
  }
  return { sidebar: null, list: null, detailCollapsed: false };
}

class PaneWidths {
  #window = $state(typeof window === 'undefined' ? 1440 : window.innerWidth);
  #sidebar = $state<number | null>(null);
  #list = $state<number | null>(null);
  /** The detail pane folded to a strip, so the list takes the window's width. */
  detailCollapsed = $state(false);

  constructor() {
    const saved = stored();
    this.#sidebar = saved.sidebar;
    this.#list = saved.list;
    this.detailCollapsed = saved.detailCollapsed;
    window.addEventListener('resize', () => {
      this.#window = window.innerWidth;
    });
  }

  get sidebar(): number {
    return this.#sidebar ?? SIDEBAR_DEFAULT;
  }
  /** Set by the user (the splitter): kept. */
  set sidebar(value: number) {
    this.#sidebar = value;
  }

  get list(): number {
    return this.#list ?? defaultListWidth(this.#window);
  }
  set list(value: number) {
    this.#list = value;
  }

  /** The widths the user set (null: following the window). */
  get chosen(): { sidebar: number | null; list: number | null } {
    return { sidebar: this.#sidebar, list: this.#list };
  }

  /** The window is narrow: filters fold, and a collapsed detail pane gives the list its room. */
  get compact(): boolean {
    return this.#window < COMPACT_WINDOW;
  }

  /** Back to following the window. */
  resetList() {
    this.#list = null;
  }

  save() {
    localStorage.setItem(
      STORAGE_KEY,
      JSON.stringify({
        sidebar: this.#sidebar,
        list: this.#list,
        detailCollapsed: this.detailCollapsed,
      } satisfies Saved),
    );
  }
}

export const paneWidths = new PaneWidths();
