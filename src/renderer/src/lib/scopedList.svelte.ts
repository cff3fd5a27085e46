// A small list loaded for the current store scope (campaigns, audiences, sync issues), refreshed after syncs.
import type { Problem } from '../../../shared/problem';
import { toProblem } from './api';

export class ScopedList<T> {
  rows = $state.raw<T[]>([]);
  /** True until the first answer for the current scope. */
  loading = $state(true);
  problem = $state.raw<Problem | null>(null);

  #fetch: (storeId: string | null) => Promise<T[]>;
  /** A row's key, unique across stores: what the view's selection holds. */
  readonly keyOf: (row: T) => string;
  #scope: string | null | undefined = undefined;
  #version = -1;
  #generation = 0;

  constructor(fetch: (storeId: string | null) => Promise<T[]>, keyOf: (row: T) => string) {
    this.#fetch = fetch;
    this.keyOf = keyOf;
  }

  /** The row with this key, if it is still in the list. */
  find(key: string | null): T | null {
    return this.rows.find((row) => this.keyOf(row) === key) ?? null;
  }

  /** Loads when the scope changed (showing skeletons) or the data changed (keeping rows on screen). */
  follow(scope: string | null, version: number) {
    if (scope === this.#scope && version === this.#version) return;
    if (scope !== this.#scope) {
      this.loading = true;
      this.rows = [];
    }
    this.#scope = scope;
    this.#version = version;
    void this.load();
  }

  async load() {
    const generation = ++this.#generation;
    const scope = this.#scope ?? null;
    try {
      const rows = await this.#fetch(scope);
      if (generation !== this.#generation) return;
      this.rows = rows;
      this.problem = null;
    } catch (error) {
      if (generation === this.#generation) this.problem = toProblem(error);
    } finally {
      if (generation === this.#generation) this.loading = false;
    }
  }
}
