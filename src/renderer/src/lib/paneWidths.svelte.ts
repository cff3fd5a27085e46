// Widths of the resizable panes, remembered between runs.
const STORAGE_KEY = 'splitbook.panes';

type Widths = { sidebar: number; list: number };
/**
 * The list's first width grows with the window (half of it, between 560 and 1000 px), so a large screen shows
 * the Goal, Start and End columns beside a readable title from the start; the user's own width wins after.
 */
const DEFAULTS: Widths = {
  sidebar: 220,
  list: Math.round(Math.min(1000, Math.max(560, window.innerWidth * 0.5))),
};

function stored(): Widths {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    if (typeof parsed === 'object' && parsed !== null && 'sidebar' in parsed && 'list' in parsed) {
      const { sidebar, list } = parsed;
      if (typeof sidebar === 'number' && typeof list === 'number') return { sidebar, list };
    }
  } catch {
    // Unreadable settings fall back to the defaults.
  }
  return DEFAULTS;
}

class PaneWidths {
  sidebar = $state(DEFAULTS.sidebar);
  list = $state(DEFAULTS.list);

  constructor() {
    const widths = stored();
    this.sidebar = widths.sidebar;
    this.list = widths.list;
  }

  save() {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ sidebar: this.sidebar, list: this.list }));
  }
}

export const paneWidths = new PaneWidths();
