// The window's global shortcuts (App.svelte): which key press syncs, opens the settings, picks a store,
// finds, refreshes the results on screen, or is left to the list pane. Plain data in, one action out.

/** What the window knows of a key press when it decides. */
export type WindowKey = {
  key: string;
  shiftKey: boolean;
  altKey: boolean;
  /** Ctrl or Cmd (hasCommandKey). */
  command: boolean;
  /** A modal dialog or a popup menu is open (overlayOpen). */
  overlay: boolean;
  /** The key went to a text field or a select (isEditable). */
  editable: boolean;
  /** A test's Results tab is on screen (its refresh is what r does). */
  resultsShown: boolean;
};

export type WindowShortcut =
  /** Sync the store in scope, or every store. */
  | { kind: 'sync'; all: boolean }
  | { kind: 'settings' }
  /** Ctrl/Cmd+digit: 0 is all stores, n the n-th store of the sidebar. */
  | { kind: 'scope'; index: number }
  | { kind: 'search' }
  | { kind: 'refresh-results' }
  /** Not a window shortcut, and nothing else owns the key: the list pane may take it. */
  | { kind: 'pane' }
  /** Left alone: the key belongs to a field, a dialog or a menu, or is a chord nobody uses. */
  | { kind: 'none' };

/** The window's answer to one key press (one not already handled). */
export function windowShortcut(press: WindowKey): WindowShortcut {
  const { key, shiftKey, altKey, command } = press;
  if (command && !altKey && key.toLowerCase() === 'r') return { kind: 'sync', all: shiftKey };
  if (command && !altKey && !shiftKey && key === ',' && !press.overlay) return { kind: 'settings' };
  if (command && !altKey && !shiftKey && /^[0-9]$/.test(key))
    return { kind: 'scope', index: Number(key) };
  if (command || altKey || press.overlay || press.editable) return { kind: 'none' };
  if (key === '/') return { kind: 'search' };
  if (key === 'r' && !shiftKey && press.resultsShown) return { kind: 'refresh-results' };
  return { kind: 'pane' };
}

/**
 * What a key left to the list pane does: Esc in the detail pane goes back to the list; j/k move to the
 * next test from anywhere outside text fields (the open test's pane included); arrows, Enter and Esc
 * only when nothing else has focus, and only if the list takes them.
 */
export function paneKey(
  key: string,
  where: { inDetail: boolean; onBody: boolean },
): 'back-to-list' | 'move' | 'if-taken' | 'none' {
  if (key === 'Escape' && where.inDetail) return 'back-to-list';
  if (key === 'j' || key === 'k') return 'move';
  return where.onBody ? 'if-taken' : 'none';
}
