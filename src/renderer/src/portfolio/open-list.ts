// "Every number opens the matching list": switches to the Tests view with the store scope and the list's filters.
import { nav } from '../lib/navigation.svelte';
import { EMPTY_FILTERS, testList, type Filters } from '../experiments/testList.svelte';

export function openList(storeId: string | null, filters: Partial<Filters>): void {
  testList.filters = { ...EMPTY_FILTERS, ...filters };
  nav.selectScope(storeId);
  nav.view = 'tests';
}

export const ENDED_STATUSES = ['completed', 'cancelled'];
