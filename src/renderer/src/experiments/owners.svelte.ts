// The test list's Owner column: every owner of the shared stores in view, one `team.owners` call a store listing (never a call a row).
import type { TeamOwner } from '#shared/contract/index';
import { api } from '../lib/api';

export const ownerKey = (storeId: string, testId: string) => `${storeId}\u0000${testId}`;

class Owners {
  /** Owner of each test with one, keyed by ownerKey. */
  byKey = $state.raw(new Map<string, TeamOwner>());
  /** This desktop's member name while it has shared stores (null: solo), for the "Mine" filter. */
  member = $state<string | null>(null);
  private asked = 0;

  /** Reads the owners of `scope` (a store, or null: every shared store) again. */
  async load(scope: string | null): Promise<void> {
    const ask = ++this.asked;
    try {
      const status = await api.team.status({});
      this.member = status.stores.length > 0 ? status.member : null;
      const stores = status.stores
        .map((s) => s.storeId)
        .filter((id) => scope === null || id === scope);
      const lists = await Promise.all(
        stores.map(async (storeId) => ({ storeId, owners: await api.team.owners({ storeId }) })),
      );
      if (ask !== this.asked) return;
      // Built whole and swapped in: the column reads one consistent map.
      this.byKey = new Map(
        lists.flatMap(({ storeId, owners }) =>
          owners.map((owner) => [ownerKey(storeId, owner.testId), owner] as const),
        ),
      );
    } catch {
      // The column shows nothing rather than a stale owner; the detail pane says why in its banner.
      if (ask === this.asked) this.byKey = new Map();
    }
  }

  /** Comments new to me on each test with any, keyed by ownerKey (the list's badge). */
  news = $state.raw(new Map<string, number>());
  private askedNews = 0;

  /** Reads the comments new to me in `scope` (a store, or null: every shared store) again. */
  async loadNews(scope: string | null): Promise<void> {
    const ask = ++this.askedNews;
    try {
      const status = await api.team.status({});
      const stores = status.stores
        .map((s) => s.storeId)
        .filter((id) => scope === null || id === scope);
      const lists = await Promise.all(
        stores.map(async (storeId) => ({ storeId, news: await api.team.commentNews({ storeId }) })),
      );
      if (ask !== this.askedNews) return;
      this.news = new Map(
        lists.flatMap(({ storeId, news }) =>
          news.map((item) => [ownerKey(storeId, item.testId), item.count] as const),
        ),
      );
    } catch {
      if (ask === this.askedNews) this.news = new Map();
    }
  }

  /** A test's thread was shown: its badge goes at once (the next read agrees). */
  seen(storeId: string, testId: string): void {
    const key = ownerKey(storeId, testId);
    if (!this.news.has(key)) return;
    this.news = new Map([...this.news].filter(([other]) => other !== key));
  }

  newComments(storeId: string, testId: string): number {
    return this.news.get(ownerKey(storeId, testId)) ?? 0;
  }

  /** Reads who this desktop is on the team again (the "Mine" chip shows while a store is shared). */
  async loadMember(): Promise<void> {
    try {
      const status = await api.team.status({});
      this.member = status.stores.length > 0 ? status.member : null;
    } catch {
      this.member = null;
    }
  }

  of(storeId: string, testId: string): TeamOwner | undefined {
    return this.byKey.get(ownerKey(storeId, testId));
  }
}

export const owners = new Owners();
