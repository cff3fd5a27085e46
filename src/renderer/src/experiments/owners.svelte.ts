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
