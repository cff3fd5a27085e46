// The calls of the current scope: what the Decisions view lists and the sidebar counts, loaded once
// for both and reloaded when the cache or the calls change.
import type { DecisionList, DecisionRow, Resource } from '#shared/contract/index';
import type { DecisionCall } from '#shared/domain/decisions/schemas';
import { api } from '../lib/api';
import { Loader } from '../lib/loader.svelte';
import { needsCall } from './calls';

export type StoreGroup = { storeId: string; storeName: string; rows: DecisionRow[] };

/** What the list shows: each test's call, made from its results, on its row. */
export const DECISION_LIST_READS: readonly Resource[] = ['decisions', 'results', 'tests'];

/** Loads when the scope changed (skeletons) or its calls changed (rows stay on screen meanwhile). */
class DecisionListState extends Loader<string | null, DecisionList> {
  /** The call the view shows only (null: every call). Kept across view switches. */
  filter = $state<DecisionCall | null>(null);

  constructor() {
    super((storeId) => api.decisions.list({ storeId }));
  }

  get list(): DecisionList | null {
    return this.data;
  }

  /** Tests needing a call now, as the sidebar's badge counts them; null until known. */
  get needCall(): number | null {
    return this.list?.needCall ?? null;
  }

  /** The rows the filter keeps, in the list's order. */
  get shown(): DecisionRow[] {
    const rows = this.list?.rows ?? [];
    return this.filter === null ? rows : rows.filter((row) => row.call === this.filter);
  }
}

export const decisionList = new DecisionListState();

/** The calls that need the consultant, grouped by store in the list's order. */
export function groupByStore(rows: readonly DecisionRow[]): StoreGroup[] {
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
export function runningRows(rows: readonly DecisionRow[]): DecisionRow[] {
  return rows.filter((row) => row.call === 'keep_running');
}
