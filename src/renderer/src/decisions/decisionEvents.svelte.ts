// When calls may have changed: `decisions.changed` names the store whose calls were made again (null:
// every store), `settings.changed` can change every call. Views showing calls follow the version of
// their own scope, so a change in one store reloads only what shows that store.
import { getBridge } from '../lib/bridge';

/** A burst of events (a sync writing page after page) makes one reload. */
const SETTLE_MS = 250;

class DecisionsVersion {
  /** Changes of every store at once. */
  #everyStore = $state(0);
  /** Changes of one store, by its id. */
  #byStore = $state<Record<string, number>>({});
  /** Any change at all: what an "All stores" view follows. */
  #any = $state(0);
  #pending = new Set<string | null>();
  #settling = false;

  /** The version a view of this scope follows (null: all stores). */
  of(storeId: string | null): number {
    if (storeId === null) return this.#any;
    return this.#everyStore + (this.#byStore[storeId] ?? 0);
  }

  changed(storeId: string | null) {
    this.#pending.add(storeId);
    if (this.#settling) return;
    this.#settling = true;
    setTimeout(() => this.#flush(), SETTLE_MS);
  }

  #flush() {
    this.#settling = false;
    const stores = [...this.#pending];
    this.#pending.clear();
    if (stores.includes(null)) this.#everyStore += 1;
    const next = { ...this.#byStore };
    for (const id of stores) if (id !== null) next[id] = (next[id] ?? 0) + 1;
    this.#byStore = next;
    this.#any += 1;
  }
}

export const decisionsVersion = new DecisionsVersion();

/** Subscribes to the events that change calls; returns the unsubscribe. */
export function followDecisionEvents(): () => void {
  const bridge = getBridge();
  const offs = [
    bridge.on('decisions.changed', ({ storeId }) => decisionsVersion.changed(storeId)),
    bridge.on('settings.changed', () => decisionsVersion.changed(null)),
  ];
  return () => offs.forEach((off) => off());
}
