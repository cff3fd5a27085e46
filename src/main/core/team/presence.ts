// Who else is online and has a store open: each provider's Hocuspocus awareness carries {member, open} (open for the store the window shows); the others' states are read back as the members online and names per local store.
import type { HocuspocusProvider } from '@hocuspocus/provider';
import { z } from 'zod';
import type { TeamPresence } from '#shared/contract/index';

/**
 * What this desktop publishes in each store's awareness while connected (at most 4 KiB: server.ts):
 * who it is, and whether that store is the one its window shows.
 */
const MemberState = z.object({ member: z.string(), open: z.boolean() });

export interface PresenceDeps {
  /** The providers of the linked stores, by team store id (none when not connected). */
  providers(): Map<string, HocuspocusProvider>;
  /** The local store id of a team store id. */
  storeOf(teamStoreId: string): string | null;
  member(): string | null;
  /** Told when another desktop opens or leaves a store (the window's event). */
  changed(presence: TeamPresence): void;
}

export class Presence {
  private openStore: string | null = null;
  private readonly watched = new WeakSet<HocuspocusProvider>();

  constructor(private readonly deps: PresenceDeps) {}

  /** The store the window shows (null: all stores, or none): published on that store's document only. */
  setOpen(storeId: string | null): TeamPresence {
    this.openStore = storeId;
    this.publish();
    return this.read();
  }

  /** Publishes the open store again (a provider opened or reconnected since) and watches every provider. */
  publish(): void {
    const member = this.deps.member();
    for (const [teamStoreId, provider] of this.deps.providers()) {
      if (!this.watched.has(provider)) {
        this.watched.add(provider);
        provider.awareness?.on('change', () => this.deps.changed(this.read()));
      }
      const open = this.deps.storeOf(teamStoreId) === this.openStore;
      provider.setAwarenessField('splitbook', member === null ? null : { member, open });
    }
  }

  /** The other members online, and who has each store open, names sorted, one entry per store with any. */
  read(): TeamPresence {
    const stores: TeamPresence['stores'] = [];
    const online = new Set<string>();
    const me = this.deps.member();
    for (const [teamStoreId, provider] of this.deps.providers()) {
      const awareness = provider.awareness;
      const storeId = this.deps.storeOf(teamStoreId);
      if (!awareness || storeId === null) continue;
      const names = new Set<string>();
      for (const [clientId, state] of awareness.getStates()) {
        if (clientId === awareness.clientID) continue;
        const parsed = MemberState.safeParse((state as Record<string, unknown>)['splitbook']);
        // Another desktop of the same member (two windows) is not "someone else".
        if (!parsed.success || parsed.data.member === me) continue;
        online.add(parsed.data.member);
        if (parsed.data.open) names.add(parsed.data.member);
      }
      if (names.size > 0) stores.push({ storeId, members: [...names].sort() });
    }
    return { stores, online: [...online].sort() };
  }
}
