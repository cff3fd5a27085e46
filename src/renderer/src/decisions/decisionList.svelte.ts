// The calls of the current scope: what the Decisions view lists and the sidebar counts, loaded once
// for both and reloaded when the cache or the calls change.
import type { DecisionList, DecisionRow } from '../../../shared/contract';
import type { DecisionCall } from '../../../shared/domain/decisions/schemas';
import type { Problem } from '../../../shared/problem';
import { api, toProblem } from '../lib/api';
import { needsCall } from './calls';

export type StoreGroup = { storeId: string; storeName: string; rows: DecisionRow[] };

class DecisionListState {
  list = $state.raw<DecisionList | null>(null);
  /** True until the first answer for the current scope. */
  loading = $state(true);
  problem = $state.raw<Problem | null>(null);
  /** The call the view shows only (null: every call). Kept across view switches. */
  filter = $state<DecisionCall | null>(null);

  #key: string | null = null;
  #generation = 0;
  #scope: string | null = null;

  /** Loads when the scope changed (skeletons) or the data changed (rows stay on screen meanwhile). */
  follow(scope: string | null, dataVersion: number, callsVersion: number) {
    const key = JSON.stringify([scope, dataVersion, callsVersion]);
    if (key === this.#key) return;
    if (scope !== this.#scope || this.#key === null) {
      this.loading = true;
      this.list = null;
    }
    this.#key = key;
    this.#scope = scope;
    void this.load();
  }

  async load() {
    const generation = ++this.#generation;
    const storeId = this.#scope;
    try {
      const list = await api.decisions.list({ storeId });
      if (generation !== this.#generation) return;
      this.list = list;
      this.problem = null;
    } catch (error) {
      if (generation === this.#generation) this.problem = toProblem(error);
    } finally {
      if (generation === this.#generation) this.loading = false;
    }
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
