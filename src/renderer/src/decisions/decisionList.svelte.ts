// The calls of the current scope: what the Decisions view lists (each call's line; the selected test's
// detail shows its basis) and the sidebar counts, loaded once for both and reloaded when the cache or
// the calls change.
import type { DecisionLine, DecisionLines, Resource } from '#shared/contract/index';
import { needsCall, type DecisionCall } from '#shared/domain/decisions/schemas';
import { api } from '../lib/api';
import { Loader } from '../lib/loader.svelte';

/** The id of a test's line in the Decisions view, for focus and the keyboard. */
export function decisionRowId(row: Pick<DecisionLine, 'storeId' | 'testId'>): string {
  return `decision-${row.storeId}-${row.testId}`;
}

export type StoreGroup = { storeId: string; storeName: string; rows: DecisionLine[] };

/** What the list shows: each test's call, made from its results, on its row. */
export const DECISION_LIST_READS: readonly Resource[] = ['decisions', 'results', 'tests'];

/** Loads when the scope changed (skeletons) or its calls changed (rows stay on screen meanwhile). */
class DecisionListState extends Loader<string | null, DecisionLines> {
  /** The call the view shows only (null: every call). Kept across view switches. */
  filter = $state<DecisionCall | null>(null);

  constructor() {
    super((storeId) => api.decisions.lines({ storeId }));
  }

  get list(): DecisionLines | null {
    return this.data;
  }

  /** Tests needing a call now, as the sidebar's badge counts them; null until known. */
  get needCall(): number | null {
    return this.list?.needCall ?? null;
  }

  /** The rows the filter keeps, in the list's order. */
  get shown(): DecisionLine[] {
    const rows = this.list?.rows ?? [];
    return this.filter === null ? rows : rows.filter((row) => row.call === this.filter);
  }
}

export const decisionList = new DecisionListState();

/** The calls that need the consultant, grouped by store in the list's order. */
export function groupByStore(rows: readonly DecisionLine[]): StoreGroup[] {
  const groups: StoreGroup[] = [];
  for (const row of rows) {
    if (!needsCall(row.call)) continue;
    const group = groups.find((g) => g.storeId === row.storeId);
    if (group) group.rows.push(row);
    else groups.push({ storeId: row.storeId, storeName: row.storeName, rows: [row] });
  }
  return groups;
}

/** The tests still running, by days to their call (soonest first), as the core orders them. */
export function runningRows(rows: readonly DecisionLine[]): DecisionLine[] {
  return rows.filter((row) => row.call === 'keep_running');
}

/** The paused and suspended tests: no call, and no forecast, until they resume. */
export function pausedRows(rows: readonly DecisionLine[]): DecisionLine[] {
  return rows.filter((row) => row.call === 'paused');
}
