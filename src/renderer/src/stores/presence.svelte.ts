// Who else has each shared store open (the team's presence): the window publishes the store it shows and follows the others' through the `team.presence` event.
import type { TeamPresence } from '#shared/contract/index';
import { api } from '../lib/api';
import { getBridge } from '../lib/bridge';

class Presence {
  #stores = $state.raw<TeamPresence['stores']>([]);
  #online = $state.raw<string[]>([]);

  /** The other members connected to the team on a store this desktop shares. */
  get online(): string[] {
    return this.#online;
  }

  #take(now: TeamPresence): void {
    this.#stores = now.stores;
    this.#online = now.online;
  }

  /** The other members with `storeId` open, names sorted (none when not on a team). */
  othersIn(storeId: string): string[] {
    return this.#stores.find((s) => s.storeId === storeId)?.members ?? [];
  }

  /** Publishes the store the window shows (null: all stores); a solo desktop answers nobody. */
  open(storeId: string | null): void {
    api.team.setOpen({ storeId }).then(
      (now) => this.#take(now),
      // Presence is a courtesy: a host without a team layer or a refused call shows nobody.
      () => this.#take({ stores: [], online: [] }),
    );
  }

  follow(): () => void {
    return getBridge().on('team.presence', (payload) => this.#take(payload));
  }
}

export const presence = new Presence();
