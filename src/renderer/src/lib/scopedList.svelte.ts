// A small list loaded for the current store scope (campaigns, audiences, sync issues), reloaded when what it lists changed.
import type { Resource } from '#shared/contract/index';
import { Loader } from './loader.svelte';

export class ScopedList<T> extends Loader<string | null, T[]> {
  /** A row's key, unique across stores: what the view's selection holds. */
  readonly keyOf: (row: T) => string;
  /** What the list shows: a change of one of these in its scope reloads it. */
  readonly resources: readonly Resource[];

  constructor(
    fetch: (storeId: string | null) => Promise<T[]>,
    keyOf: (row: T) => string,
    resources: readonly Resource[],
  ) {
    super(fetch);
    this.keyOf = keyOf;
    this.resources = resources;
  }

  get rows(): T[] {
    return this.data ?? [];
  }

  /** The row with this key, if it is still in the list. */
  find(key: string | null): T | null {
    return this.rows.find((row) => this.keyOf(row) === key) ?? null;
  }
}
