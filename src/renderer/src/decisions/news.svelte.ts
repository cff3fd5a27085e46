// The Decisions view's badge: calls a sync changed since the user last looked (decisions.news), per
// store; looking at the view (of a store, or of all) clears what it shows.
import type { DecisionNews } from '#shared/contract/index';
import { api } from '../lib/api';
import { getBridge } from '../lib/bridge';

class News {
  current = $state.raw<DecisionNews>({ count: 0, byStore: {} });

  /** Changed calls of the scope not looked at yet (null: all stores). */
  of(storeId: string | null): number {
    return storeId === null ? this.current.count : (this.current.byStore[storeId] ?? 0);
  }

  async load(): Promise<void> {
    try {
      this.current = await api.decisions.news({ storeId: null });
    } catch {
      // The badge waits for the next decisions.news; the view itself says what failed.
    }
  }

  /** The user is looking at the Decisions view of the scope. */
  async seen(storeId: string | null): Promise<void> {
    if (this.of(storeId) === 0) return;
    try {
      await api.decisions.seen({ storeId });
    } catch {
      // Still news next time: the badge stays, which is what it says.
    }
  }
}

export const news = new News();

/** Keeps the badge current; returns the unsubscribe. */
export function followNews(): () => void {
  void news.load();
  return getBridge().on('decisions.news', (payload) => {
    news.current = payload;
  });
}
