// The keyboard of the app's lists and grids, once: which key moves to which row or column, opens, edits
// or clears the selection. Each view only says what its rows are and does what the answer asks.

/** Where the keyboard is in a list: the selected row (-1 for none) and, in a grid of cells, the column. */
export interface GridPosition {
  /** The selected row's index, -1 when nothing is selected. */
  row: number;
  /** How many rows the list has. */
  rows: number;
  /** The focused column's index, in a grid whose cells take the keyboard (←/→, h/l). */
  column?: number;
  /** How many columns the keyboard moves through; without it ←/→ are not the list's keys. */
  columns?: number;
  /** How many rows PageUp/PageDown move; without it those keys are not the list's. */
  page?: number;
  /** Whether F2 edits the focused cell (an editable grid). */
  editable?: boolean;
}

/**
 * What a key asks of a list: move to a row (not yet clamped: the view clamps to its rows, as some load
 * them on demand) and column, act on the selected row (Enter, or F2 in an editable grid), or clear the
 * selection (Esc); null when the key is not the list's.
 */
export type GridAction =
  | { kind: 'move'; row: number; column: number }
  | { kind: 'activate'; key: 'Enter' | 'F2' }
  | { kind: 'clear' };

export function gridAction(key: string, at: GridPosition): GridAction | null {
  const column = at.column ?? 0;
  const move = (row: number, to = column): GridAction => ({ kind: 'move', row, column: to });
  switch (key) {
    case 'ArrowDown':
    case 'j':
      return move(at.row + 1);
    case 'ArrowUp':
    case 'k':
      return move(at.row < 0 ? 0 : at.row - 1);
    case 'ArrowRight':
    case 'l':
      if (at.columns === undefined) return null;
      return move(Math.max(0, at.row), Math.min(at.columns - 1, column + 1));
    case 'ArrowLeft':
    case 'h':
      if (at.columns === undefined) return null;
      return move(Math.max(0, at.row), Math.max(0, column - 1));
    case 'PageDown':
      return at.page === undefined ? null : move(at.row + at.page);
    case 'PageUp':
      return at.page === undefined ? null : move(at.row - at.page);
    case 'Home':
      return move(0);
    case 'End':
      return move(at.rows - 1);
    case 'F2':
      if (!at.editable) return null;
      return at.row < 0 ? move(0) : { kind: 'activate', key };
    case 'Enter':
      return at.row < 0 ? move(0) : { kind: 'activate', key };
    case 'Escape':
      return { kind: 'clear' };
    default:
      return null;
  }
}

/** A row index kept inside a list of `rows` rows (the first or the last when past either end). */
export function clampRow(index: number, rows: number): number {
  return Math.min(rows - 1, Math.max(0, index));
}

/** What a list does with each answer of `gridAction`; a list without a use for one leaves it out. */
export interface GridKeyHandlers {
  move?(row: number, column: number): void;
  activate?(key: 'Enter' | 'F2'): void;
  clear?(): void;
}

/**
 * A key pressed in a list, handled: the answer of `gridAction` goes to its handler and the key's default
 * is prevented. True when the key was the list's (the app then leaves it alone), false otherwise.
 */
export function handleGridKey(
  event: Pick<KeyboardEvent, 'key' | 'preventDefault'>,
  at: GridPosition,
  on: GridKeyHandlers,
): boolean {
  const action = gridAction(event.key, at);
  if (!action) return false;
  if (action.kind === 'move') on.move?.(action.row, action.column);
  else if (action.kind === 'activate') on.activate?.(action.key);
  else on.clear?.();
  event.preventDefault();
  return true;
}
