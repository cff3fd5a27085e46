// Keyboard for simple selectable tables: arrows or j/k move and select, Home/End jump.
const KEYS: Record<string, (rows: HTMLElement[], at: number) => number> = {
  ArrowDown: (rows, at) => Math.min(rows.length - 1, at + 1),
  j: (rows, at) => Math.min(rows.length - 1, at + 1),
  ArrowUp: (_rows, at) => Math.max(0, at - 1),
  k: (_rows, at) => Math.max(0, at - 1),
  Home: () => 0,
  End: (rows) => rows.length - 1,
};

/** On a row's keydown: moves focus to another row of the same body and clicks it (which selects it). */
export function moveBetweenRows(event: KeyboardEvent) {
  const row = event.currentTarget;
  if (!(row instanceof HTMLElement) || event.ctrlKey || event.metaKey || event.altKey) return;
  const move = KEYS[event.key];
  if (!move) return;
  const rows = [...(row.parentElement?.children ?? [])].filter(
    (el): el is HTMLElement => el instanceof HTMLElement,
  );
  const next = rows[move(rows, rows.indexOf(row))];
  event.preventDefault();
  next?.focus();
  next?.click();
}
