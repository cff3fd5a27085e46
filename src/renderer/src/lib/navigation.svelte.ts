// Where the user is: the view, the store scope (null = all stores) and the selection in each view.
import type { TestRef } from '../../../shared/contract';
import type { z } from 'zod';

export const VIEWS = [
  { id: 'tests', label: 'Tests' },
  { id: 'campaigns', label: 'Campaigns' },
  { id: 'audiences', label: 'Audiences' },
  { id: 'issues', label: 'Sync issues' },
] as const;
export type View = (typeof VIEWS)[number]['id'];

export type TestKey = z.infer<typeof TestRef>;

class Navigation {
  view = $state<View>('tests');
  scope = $state<string | null>(null);
  test = $state.raw<TestKey | null>(null);
  /** Selected row of the campaigns, audiences and sync-issues lists, by a key each list defines. */
  rowKey = $state<Record<Exclude<View, 'tests'>, string | null>>({ campaigns: null, audiences: null, issues: null });
  /** Set to ask the test list to focus its search box. */
  searchFocusRequest = $state(0);

  selectScope(storeId: string | null) {
    if (this.scope === storeId) return;
    this.scope = storeId;
    if (this.test && storeId !== null && this.test.storeId !== storeId) this.test = null;
  }
}

export const nav = new Navigation();

export function sameTest(a: TestKey | null, b: TestKey | null): boolean {
  return a !== null && b !== null && a.storeId === b.storeId && a.testId === b.testId;
}
