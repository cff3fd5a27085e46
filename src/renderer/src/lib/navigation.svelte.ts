// Where the user is: the view, the store scope (null = all stores) and the selection in each view.
import type { TestRef } from '#shared/contract/index';
import type { z } from 'zod';

export const VIEWS = [
  { id: 'decisions', label: 'Decisions' },
  { id: 'backlog', label: 'Backlog' },
  { id: 'tests', label: 'Tests' },
  { id: 'campaigns', label: 'Campaigns' },
  { id: 'audiences', label: 'Audiences' },
  { id: 'issues', label: 'Sync issues' },
  { id: 'changes', label: 'Changes' },
  { id: 'portfolio', label: 'Portfolio' },
  { id: 'learnings', label: 'Learnings' },
  { id: 'pending', label: 'Pending changes' },
] as const;
export type View = (typeof VIEWS)[number]['id'];

export type TestKey = z.infer<typeof TestRef>;

const STORAGE_KEY = 'splitbook.navigation';

/** The view and scope of the last session, so a reload opens where the user was. */
function remembered(): { view: View; scope: string | null } {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    if (typeof saved === 'object' && saved !== null && 'view' in saved && 'scope' in saved) {
      const view = VIEWS.find((v) => v.id === saved.view)?.id ?? 'tests';
      return { view, scope: typeof saved.scope === 'string' ? saved.scope : null };
    }
  } catch {
    // Unreadable: start from the defaults.
  }
  return { view: 'tests', scope: null };
}

class Navigation {
  view = $state<View>(remembered().view);
  scope = $state<string | null>(remembered().scope);
  test = $state.raw<TestKey | null>(null);
  /** Selected row of the campaigns, audiences and sync-issues lists, by a key each list defines. */
  rowKey = $state<Record<Exclude<View, 'tests'>, string | null>>({
    decisions: null,
    backlog: null,
    campaigns: null,
    audiences: null,
    issues: null,
    changes: null,
    portfolio: null,
    learnings: null,
    pending: null,
  });

  save() {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ view: this.view, scope: this.scope }));
  }

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
