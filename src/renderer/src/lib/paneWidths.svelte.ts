// Widths of the resizable panes, remembered between runs.
const STORAGE_KEY = 'splitbook.panes';

type Widths = { sidebar: number; list: number };
/**
 * The list's first width grows with the window (half of it, and 40% of every pixel past 1440, between
 * 560 and 1240 px), so a large screen (1920 px) shows the Decision, Store, Goal, Start, End and Alerts
 * columns beside a readable title from the start while the detail pane keeps about as much room as at
 * 1440 px; the user's own width wins after.
 */
const DEFAULTS: Widths = {
  sidebar: 220,
  list: Math.round(
    Math.min(
      1240,
      Math.max(560, window.innerWidth * 0.5 + Math.max(0, window.innerWidth - 1440) * 0.4),
    ),
  ),
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
